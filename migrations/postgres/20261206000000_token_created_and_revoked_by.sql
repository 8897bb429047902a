-- A token made or revoked through the admin API (`/v1/tenants/{tenant}/tokens`) records the token
-- that made or revoked it, as bundles and activations record theirs. NULL for what the CLI
-- (`toolgate token create|revoke`) or the bootstrap admin (`TOOLGATE_ADMIN_TOKEN`) did, and for
-- every token before this migration.

ALTER TABLE tokens ADD COLUMN created_by bigint REFERENCES tokens (id);
ALTER TABLE tokens ADD COLUMN revoked_by bigint REFERENCES tokens (id);
