-- The bundle the winning answer came from: see the PostgreSQL migration of the same name.

ALTER TABLE audit ADD COLUMN winner_bundle TEXT;
