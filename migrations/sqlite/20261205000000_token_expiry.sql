-- The embedded store's tokens may expire, as PostgreSQL's `20261204000000_token_expiry.sql`:
-- RFC 3339 UTC text with milliseconds, as the other times; NULL never expires.

ALTER TABLE tokens ADD COLUMN expires_at TEXT;
