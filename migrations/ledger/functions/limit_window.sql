-- How far back a money limit's period reaches (ADR 0014).
CREATE OR REPLACE FUNCTION limit_window(p_period text) RETURNS interval IMMUTABLE LANGUAGE sql AS $$
    SELECT CASE p_period WHEN 'daily' THEN interval '24 hours' WHEN 'weekly' THEN interval '7 days'
                         WHEN 'monthly' THEN interval '30 days' ELSE interval '0' END
$$;
