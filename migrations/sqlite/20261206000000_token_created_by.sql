-- The token that made a token through the admin API, as PostgreSQL's
-- `20261206000000_token_created_by.sql`; NULL for tokens made by the CLI or the bootstrap admin.

ALTER TABLE tokens ADD COLUMN created_by INTEGER REFERENCES tokens (id);
