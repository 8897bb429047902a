-- A token made through the admin API (`POST /v1/tenants/{tenant}/tokens`) records the token that
-- made it, as bundles and activations do; NULL for tokens made by `toolgate token create` (and
-- every token made before this migration) and by the bootstrap admin (`TOOLGATE_ADMIN_TOKEN`).

ALTER TABLE tokens ADD COLUMN created_by bigint REFERENCES tokens (id);
