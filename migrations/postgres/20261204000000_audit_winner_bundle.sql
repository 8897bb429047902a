-- The bundle the winning answer came from (`tenant:bundle_id:sha256`, one of `bundles`). An agent
-- of tenant T is evaluated against T's live bundle and `global`'s, and both can hold rules of one
-- id (both including `baseline`, say), so `winner` alone does not say which bundle version
-- decided. NULL when no bundle answered, and in rows written before this column.
--
-- A row with a winner bundle is hashed with the tag `toolgate-audit-v2` and the value after
-- `winner`; rows without one keep the `v1` encoding, so existing chains verify unchanged.
-- Adding a nullable column without a default rewrites nothing.
--
-- Going back to a build without this column: rows it finds in a spool written by this one lose
-- their winner_bundle on the way to the database, and `audit verify` names them edited. Let the
-- spool drain (SIGTERM drains it) before going back.

ALTER TABLE audit ADD COLUMN winner_bundle text;
