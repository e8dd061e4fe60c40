-- Transfers of $600 or more (the W-2G floor), in journal order, for `GET /v1/reports/large-wins`:
-- the gateway mails a player each large win (issue 49 §Email) by reading past its cursor, which
-- this index answers without a scan of the whole journal.
CREATE INDEX transfers_large_by_seq ON transfers (seq) WHERE amount >= 60000;
