-- Tokens may expire: `toolgate token create --expires-in 90d` (or `--expires-at`). NULL is a
-- token that never expires, as every token made before this migration. An expired token stays
-- in the table (and in each replica's memory) until it is revoked, so that its use is refused
-- as expired, counted and logged, rather than as unknown.

ALTER TABLE tokens ADD COLUMN expires_at timestamptz;
