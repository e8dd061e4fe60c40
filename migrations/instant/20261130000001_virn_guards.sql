-- Wrong VIRNs counted per terminal and per retailer over a window a right VIRN does not reset,
-- and checked under the guards' row locks so concurrent scans cannot pass the limit (issue 11,
-- defect 5). Replaces terminal_failures.
CREATE TABLE virn_guards (
    scope        text NOT NULL CHECK (scope IN ('terminal', 'retailer')),
    key          text NOT NULL,
    window_start timestamptz NOT NULL DEFAULT now(),
    failures     integer NOT NULL DEFAULT 0,
    locked_until timestamptz,
    PRIMARY KEY (scope, key)
);
INSERT INTO virn_guards (scope, key, failures, locked_until)
SELECT 'terminal', terminal_id, failures, locked_until FROM terminal_failures;
DROP TABLE terminal_failures;

-- One scan, in one statement: the guards of the terminal and its retailer are locked (in key
-- order, so two scans never deadlock), a lock in force refuses the scan, the ticket and its pack
-- are read, and the VIRN's keyed hash (computed by the service, which alone holds the key) is
-- compared with the stored one. A wrong VIRN counts against both guards; reaching a limit locks
-- the terminal (or every terminal of the retailer) for `p_lock`. Because every scan of a terminal
-- or retailer waits for the one before it, no burst of concurrent guesses gets past the limit.
CREATE FUNCTION scan_ticket(
    p_terminal text, p_retailer text, p_game integer, p_book integer, p_ticket integer,
    p_virn_hash bytea, p_terminal_limit integer, p_retailer_limit integer, p_window interval,
    p_lock interval
) RETURNS TABLE (
    locked_until timestamptz, found boolean, pack_state text, virn_ok boolean, attempts_left integer,
    prize_row smallint, prize_cents bigint, paid_at timestamptz, payment text, paid_to text
) LANGUAGE plpgsql AS $$
DECLARE
    t record;
    g record;
    lock_end timestamptz;
    left_t integer;
    left_r integer;
BEGIN
    INSERT INTO virn_guards (scope, key)
    VALUES ('terminal', p_terminal), ('retailer', coalesce(p_retailer, p_terminal))
    ON CONFLICT DO NOTHING;
    -- Lock both guards ('retailer' sorts before 'terminal'), then read the latest lock in force.
    PERFORM 1 FROM virn_guards vg
     WHERE (vg.scope, vg.key) IN (('terminal', p_terminal), ('retailer', coalesce(p_retailer, p_terminal)))
     ORDER BY vg.scope, vg.key FOR UPDATE;
    SELECT max(vg.locked_until) INTO lock_end FROM virn_guards vg
     WHERE (vg.scope, vg.key) IN (('terminal', p_terminal), ('retailer', coalesce(p_retailer, p_terminal)))
       AND vg.locked_until > clock_timestamp();
    IF lock_end IS NOT NULL THEN
        RETURN QUERY SELECT lock_end, false, NULL::text, false, 0, NULL::smallint, NULL::bigint,
                            NULL::timestamptz, NULL::text, NULL::text;
        RETURN;
    END IF;
    SELECT tk.prize_row, tk.prize_cents, tk.virn_hash, tk.paid_at, tk.payment, tk.paid_to, p.state AS pack_state
      INTO t
      FROM tickets tk JOIN packs p ON p.game = tk.game AND p.book = tk.book
     WHERE tk.game = p_game AND tk.book = p_book AND tk.ticket = p_ticket;
    IF NOT FOUND THEN
        RETURN QUERY SELECT NULL::timestamptz, false, NULL::text, false, 0, NULL::smallint, NULL::bigint,
                            NULL::timestamptz, NULL::text, NULL::text;
        RETURN;
    END IF;
    IF t.pack_state NOT IN ('active', 'settled') OR t.virn_hash = p_virn_hash THEN
        RETURN QUERY SELECT NULL::timestamptz, true, t.pack_state, t.virn_hash = p_virn_hash, 0, t.prize_row,
                            t.prize_cents, t.paid_at, t.payment, t.paid_to;
        RETURN;
    END IF;
    -- A wrong VIRN: counted in each guard's window (a window past its length starts again).
    UPDATE virn_guards vg
       SET window_start = CASE WHEN vg.window_start <= now() - p_window THEN now() ELSE vg.window_start END,
           failures = CASE WHEN vg.window_start <= now() - p_window THEN 1 ELSE vg.failures + 1 END
     WHERE (vg.scope, vg.key) IN (('terminal', p_terminal), ('retailer', coalesce(p_retailer, p_terminal)));
    UPDATE virn_guards vg
       SET locked_until = now() + p_lock
     WHERE (vg.scope = 'terminal' AND vg.key = p_terminal AND vg.failures >= p_terminal_limit)
        OR (vg.scope = 'retailer' AND vg.key = coalesce(p_retailer, p_terminal) AND vg.failures >= p_retailer_limit);
    SELECT max(CASE WHEN vg.scope = 'terminal' THEN p_terminal_limit - vg.failures END),
           max(CASE WHEN vg.scope = 'retailer' THEN p_retailer_limit - vg.failures END)
      INTO left_t, left_r
      FROM virn_guards vg
     WHERE (vg.scope, vg.key) IN (('terminal', p_terminal), ('retailer', coalesce(p_retailer, p_terminal)));
    RETURN QUERY SELECT NULL::timestamptz, true, t.pack_state, false,
                        greatest(0, least(coalesce(left_t, 0), coalesce(left_r, left_t, 0))),
                        t.prize_row, t.prize_cents, t.paid_at, t.payment, t.paid_to;
END $$;
