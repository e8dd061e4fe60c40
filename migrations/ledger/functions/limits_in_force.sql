-- The money limits in force on a wallet now, one per kind, period and source (none where
-- removed): each one's latest row already in effect (ADR 0014: a lowered limit applies at once, a
-- raise or a removal from its `effective_at`).
CREATE OR REPLACE FUNCTION limits_in_force(p_account uuid)
RETURNS TABLE (kind text, period text, source text, cents bigint) STABLE LANGUAGE sql AS $$
    SELECT f.kind, f.period, f.source, f.cents
      FROM (SELECT DISTINCT ON (l.kind, l.period, l.source) l.kind, l.period, l.source, l.cents
              FROM wallet_limits l WHERE l.account_id = p_account AND l.effective_at <= now()
             ORDER BY l.kind, l.period, l.source, l.effective_at DESC) f
     WHERE f.cents IS NOT NULL
$$;
