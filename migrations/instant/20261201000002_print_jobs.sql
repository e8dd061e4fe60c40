-- Print runs as jobs (issue 14): an operator's request is answered at once with a job; the run
-- is generated and stored in the background, in one transaction, so a crash or a cancel leaves no
-- partial run (a crashed job starts again from nothing; ADR 0005 amendment).
CREATE TABLE print_jobs (
    id                uuid PRIMARY KEY,
    game              integer NOT NULL,
    state             text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
    tickets_total     bigint NOT NULL,
    tickets_generated bigint NOT NULL DEFAULT 0,
    tickets_stored    bigint NOT NULL DEFAULT 0,
    attempts          integer NOT NULL DEFAULT 0,
    cancel_requested  boolean NOT NULL DEFAULT false,
    -- While running: the worker holding it renews this; past it, the job is taken up again.
    lease_until       timestamptz,
    print_run         uuid REFERENCES print_runs (id),
    error             text,
    created_by        text NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    started_at        timestamptz,
    finished_at       timestamptz
);
CREATE INDEX print_jobs_waiting ON print_jobs (created_at) WHERE state IN ('queued', 'running');
