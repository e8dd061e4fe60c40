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

-- One scan, in one statement: the terminal and its retailer are locked (transaction-scoped
-- advisory locks, in a fixed order so two scans never deadlock: memory only, no row written), a
-- lock in force refuses the scan, the ticket and its pack are read, and the VIRN's keyed hash
-- (computed by the service, which alone holds the key) is compared with the stored one. A wrong
-- VIRN counts against both guards (their rows exist only once something has failed); reaching a
-- limit locks the terminal (or every terminal of the retailer) for `p_lock`. Because every scan
-- of a terminal or retailer waits for the one before it, no burst of concurrent guesses gets past
-- the limit.
CREATE FUNCTION scan_ticket(
    p_terminal text, p_retailer text, p_game integer, p_book integer, p_ticket integer,
    p_virn_hash bytea, p_terminal_limit integer, p_retailer_limit integer, p_window interval,
    p_lock interval,
    OUT locked_until timestamptz, OUT printed boolean, OUT pack_state text, OUT virn_ok boolean,
    OUT attempts_left integer, OUT prize_row smallint, OUT prize_cents bigint, OUT paid_at timestamptz,
    OUT payment text, OUT paid_to text
) LANGUAGE plpgsql AS $$
DECLARE
    stored bytea;
    left_t integer;
    left_r integer;
    retailer text := coalesce(p_retailer, p_terminal);
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('virn-guard/retailer/' || retailer, 0)),
            pg_advisory_xact_lock(hashtextextended('virn-guard/terminal/' || p_terminal, 0));
    -- Read after the locks (a statement of its own, so it sees what the scan before committed).
    SELECT (SELECT max(vg.locked_until) FROM virn_guards vg
             WHERE (vg.scope, vg.key) IN (('terminal', p_terminal), ('retailer', retailer))
               AND vg.locked_until > clock_timestamp()),
           tk.ticket IS NOT NULL, tk.prize_row, tk.prize_cents, tk.virn_hash, tk.paid_at, tk.payment,
           tk.paid_to, p.state
      INTO locked_until, printed, prize_row, prize_cents, stored, paid_at, payment, paid_to, pack_state
      FROM (SELECT 1) AS one
      LEFT JOIN tickets tk ON tk.game = p_game AND tk.book = p_book AND tk.ticket = p_ticket
      LEFT JOIN packs p ON p.game = tk.game AND p.book = tk.book;
    virn_ok := coalesce(stored = p_virn_hash, false);
    attempts_left := 0;
    IF locked_until IS NOT NULL OR NOT printed OR pack_state NOT IN ('active', 'settled') OR virn_ok THEN
        RETURN;
    END IF;
    -- A wrong VIRN: counted in each guard's window (a window past its length starts again), and
    -- a guard at its limit locked.
    INSERT INTO virn_guards AS vg (scope, key, window_start, failures, locked_until)
    VALUES ('terminal', p_terminal, now(), 1, CASE WHEN 1 >= p_terminal_limit THEN now() + p_lock END),
           ('retailer', retailer, now(), 1, CASE WHEN 1 >= p_retailer_limit THEN now() + p_lock END)
    ON CONFLICT (scope, key) DO UPDATE
       SET window_start = CASE WHEN vg.window_start <= now() - p_window THEN now() ELSE vg.window_start END,
           failures = CASE WHEN vg.window_start <= now() - p_window THEN 1 ELSE vg.failures + 1 END,
           locked_until = CASE
               WHEN (CASE WHEN vg.window_start <= now() - p_window THEN 1 ELSE vg.failures + 1 END)
                    >= CASE WHEN vg.scope = 'terminal' THEN p_terminal_limit ELSE p_retailer_limit END
               THEN now() + p_lock ELSE vg.locked_until END;
    SELECT max(CASE WHEN vg.scope = 'terminal' THEN p_terminal_limit - vg.failures END),
           max(CASE WHEN vg.scope = 'retailer' THEN p_retailer_limit - vg.failures END)
      INTO left_t, left_r
      FROM virn_guards vg
     WHERE (vg.scope, vg.key) IN (('terminal', p_terminal), ('retailer', retailer));
    attempts_left := greatest(0, least(coalesce(left_t, 0), coalesce(left_r, left_t, 0)));
END $$;
