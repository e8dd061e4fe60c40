-- The printer's file of each print run (issue 14): encrypted to the printer's key and signed by
-- the lottery, downloaded exactly once; and the service's hash-chained audit log, which records
-- each download and every refused second one.
ALTER TABLE print_runs
    ADD COLUMN printer_file               text,
    ADD COLUMN printer_file_sha256        bytea,
    ADD COLUMN printer_file_signature     bytea,
    ADD COLUMN printer_file_downloaded_at timestamptz,
    ADD COLUMN printer_file_downloaded_by text;
ALTER TABLE print_jobs ADD COLUMN file_written boolean NOT NULL DEFAULT false;

CREATE TABLE audit_log (
    seq        bigint PRIMARY KEY,
    kind       text NOT NULL,
    subject    uuid NOT NULL,
    record     text NOT NULL,
    prev_hash  bytea NOT NULL,
    hash       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE FUNCTION refuse_audit_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'append_only' USING DETAIL = format('%s on %s is not allowed', TG_OP, TG_TABLE_NAME);
END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION refuse_audit_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_audit_change();
