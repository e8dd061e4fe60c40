-- The online prizes still to pay, by drawing and serial (issue 52). The payer reads them a slice
-- of serials at a time; by the key alone each slice visited every winner in its range, nine in
-- ten of them sold at a till (53 ms a slice of 2,000 tickets in a 10-million-play drawing).
-- Only unpaid online winners are in this index, and marking a prize paid takes it out.
CREATE INDEX pb_winners_online_unpaid ON pb_winners (draw_date, serial) WHERE online AND paid_at IS NULL;
