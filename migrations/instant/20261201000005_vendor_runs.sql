-- Runs a printing vendor generated (issue 14): imported from its validation file, delivered
-- encrypted to the lottery's key into the vendor inbox, as a print job of its own kind. The run
-- records where it came from and the SHA-256 of the file it was imported from.
ALTER TABLE print_jobs
    ADD COLUMN source      text NOT NULL DEFAULT 'generated' CHECK (source IN ('generated', 'vendor_file')),
    ADD COLUMN vendor_file text,
    ADD CONSTRAINT print_jobs_vendor_file CHECK ((source = 'vendor_file') = (vendor_file IS NOT NULL));
ALTER TABLE print_runs
    ADD COLUMN source             text NOT NULL DEFAULT 'generated' CHECK (source IN ('generated', 'vendor_file')),
    ADD COLUMN vendor_file_sha256 bytea;
