-- The tokens that made and revoked a token through the admin API, as PostgreSQL's
-- `20261206000000_token_created_and_revoked_by.sql`; NULL for the CLI and the bootstrap admin.

ALTER TABLE tokens ADD COLUMN created_by INTEGER REFERENCES tokens (id);
ALTER TABLE tokens ADD COLUMN revoked_by INTEGER REFERENCES tokens (id);
