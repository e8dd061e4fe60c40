-- Counts the writes of a table's shoe. A deal reads the shoe as its round is recorded and
-- writes it back only if no other write came between (the round before, finishing at the same
-- moment, say): a deal never draws from a shoe older than the last cards dealt.
ALTER TABLE bj_tables ADD COLUMN shoe_version bigint NOT NULL DEFAULT 0;
