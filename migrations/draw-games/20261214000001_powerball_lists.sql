-- Issue 36: a player's own online Powerball tickets newest first (GET /v1/powerball/tickets),
-- and the prizes paid at the lottery office newest first (GET /v1/powerball/office-claims).
CREATE INDEX pb_tickets_online_newest ON pb_tickets (seller, created_at DESC, id DESC) WHERE channel = 'online';
CREATE INDEX pb_claims_office_newest ON pb_claims (created_at DESC, id DESC) WHERE payee = 'office';
