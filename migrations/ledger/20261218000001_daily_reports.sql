-- The daily reports (issue 50 §Daily reports): one per gaming day, made once from the journal
-- after the day ends and never made again (a report records the software and the rules that made
-- it). A day is found in the journal by when its transfers were made.
CREATE INDEX transfers_by_time ON transfers (created_at);

CREATE TABLE daily_reports (
    gaming_day        date PRIMARY KEY,
    opens_at          timestamptz NOT NULL,
    closes_at         timestamptz NOT NULL CHECK (closes_at > opens_at),
    made_at           timestamptz NOT NULL DEFAULT now(),
    -- the ledger's version and the report rules' (the classification of the journal's moves)
    software_version  text NOT NULL,
    rules_version     integer NOT NULL,
    no_activity       boolean NOT NULL,
    -- one object per game and channel: plays, handle, refunds, voids, prizes won, paid, expired
    lines             jsonb NOT NULL,
    -- each progressive pot's and prize liability's balance at the close
    liabilities       jsonb NOT NULL,
    accounts_active   bigint NOT NULL,
    accounts_unreconciled bigint NOT NULL
);

-- Every player account that moved money in the day, reconciled.
CREATE TABLE daily_report_accounts (
    -- (its report row goes in after its accounts, in the same transaction: checked at the commit)
    gaming_day     date NOT NULL REFERENCES daily_reports (gaming_day) DEFERRABLE INITIALLY DEFERRED,
    account_id     uuid NOT NULL,
    owner          text NOT NULL,
    opening        bigint NOT NULL,
    deposits       bigint NOT NULL,
    withdrawals    bigint NOT NULL,
    stakes         bigint NOT NULL,
    prizes         bigint NOT NULL,
    refunds        bigint NOT NULL,
    adjustments    bigint NOT NULL,
    other          bigint NOT NULL,
    closing        bigint NOT NULL,
    -- what the ledger's balance counters held at the close
    ledger_closing bigint NOT NULL,
    reconciled     boolean NOT NULL,
    PRIMARY KEY (gaming_day, account_id)
);
CREATE INDEX daily_report_accounts_unreconciled ON daily_report_accounts (gaming_day) WHERE NOT reconciled;

CREATE TRIGGER daily_reports_append_only BEFORE UPDATE OR DELETE ON daily_reports
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER daily_report_accounts_append_only BEFORE UPDATE OR DELETE ON daily_report_accounts
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
