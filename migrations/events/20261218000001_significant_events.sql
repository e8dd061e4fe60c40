-- The significant-events log (issue 50, ADR 0019): one append-only, hash-chained log every
-- service writes to. This schema, `events`, is the platform's own (platform::events), migrated
-- by every service at start beside its own schema: the one place services share, written only
-- through `platform::events::record`, read only by the gateway's regulator routes and the
-- `lotto events` commands.
--
-- A service records an event by inserting it into `pending` in the transaction of the change it
-- records, taking no lock: both commit or neither does. The chainer (one at a time, under an
-- advisory lock) moves pending events into `log` in batches, each given the next `seq`, a
-- `recorded_at` that never goes backwards, and `hash = sha256(prev_hash || canonical line)`
-- (platform::events::chain). So every write path stays as concurrent as it was, and the chain
-- still has one order: the order the chainer recorded the events in.
CREATE TABLE pending (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at timestamptz NOT NULL DEFAULT now(),
    service text NOT NULL,
    kind text NOT NULL,
    player_id uuid,
    retailer_id uuid,
    terminal text,
    drawing text,
    staff_id text,
    details text NOT NULL
);

-- The chain, in monthly partitions by `recorded_at` (made by the chainer as months begin): a
-- month is a run of `seq`, so it can be sealed, archived to a file and dropped without touching
-- the chain (ADR 0019).
CREATE TABLE log (
    seq bigint NOT NULL,
    recorded_at timestamptz NOT NULL,
    occurred_at timestamptz NOT NULL,
    service text NOT NULL,
    kind text NOT NULL,
    player_id uuid,
    retailer_id uuid,
    terminal text,
    drawing text,
    staff_id text,
    details text NOT NULL,
    prev_hash bytea NOT NULL,
    hash bytea NOT NULL,
    PRIMARY KEY (seq, recorded_at)
) PARTITION BY RANGE (recorded_at);

CREATE INDEX log_by_player ON log (player_id, seq) WHERE player_id IS NOT NULL;
CREATE INDEX log_by_retailer ON log (retailer_id, seq) WHERE retailer_id IS NOT NULL;
CREATE INDEX log_by_terminal ON log (terminal, seq) WHERE terminal IS NOT NULL;
CREATE INDEX log_by_drawing ON log (drawing, seq) WHERE drawing IS NOT NULL;
CREATE INDEX log_by_staff ON log (staff_id, seq) WHERE staff_id IS NOT NULL;
CREATE INDEX log_by_kind ON log (kind, seq);
CREATE INDEX log_by_occurrence ON log (occurred_at, seq);

CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the significant-events log is append-only';
END $$;
-- Row triggers on a partitioned table are cloned onto every partition, present and future.
CREATE TRIGGER log_append_only BEFORE UPDATE OR DELETE ON log
    FOR EACH ROW EXECUTE FUNCTION refuse_change();

-- A sealed month: its run of the chain and the hashes at both ends, recorded once the month is
-- over (nothing can be recorded into it after: `recorded_at` never goes backwards); then, when
-- the operator has archived it, the file's digest and the time its partition was dropped.
CREATE TABLE seals (
    month date PRIMARY KEY CHECK (extract(day FROM month) = 1),
    first_seq bigint,
    last_seq bigint,
    events bigint NOT NULL,
    prev_hash bytea NOT NULL,
    last_hash bytea NOT NULL,
    sealed_at timestamptz NOT NULL DEFAULT now(),
    archive_sha256 bytea,
    dropped_at timestamptz
);

-- Every process that started (issue 50: configuration and software version at each start, and
-- unavailability): seen every few seconds while it runs, stopped when it stops cleanly. One that
-- stopped being seen without stopping is found by the next start, or by any running process,
-- and recorded once as an unavailability.
CREATE TABLE processes (
    instance uuid PRIMARY KEY,
    service text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    version text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    seen_at timestamptz NOT NULL DEFAULT now(),
    stopped_at timestamptz,
    lapse_recorded_at timestamptz
);
CREATE INDEX processes_running ON processes (seen_at) WHERE stopped_at IS NULL AND lapse_recorded_at IS NULL;
