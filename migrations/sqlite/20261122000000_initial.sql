-- The embedded store: the same tables as PostgreSQL's `20261122000000_initial.sql`, in SQLite.
-- Tenants, tokens (hashes only), bundles (immutable), activations (history; newest is live).
-- Timestamps are RFC 3339 text in UTC with milliseconds; documents are JSON text.

CREATE TABLE tenants (
    name       TEXT PRIMARY KEY CHECK (
                   length(name) BETWEEN 1 AND 63
                   AND substr(name, 1, 1) GLOB '[a-z0-9]'
                   AND name NOT GLOB '*[^a-z0-9_-]*'),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

INSERT INTO tenants (name) VALUES ('global');

CREATE TABLE tokens (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    hash        BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),
    prefix      TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('agent', 'admin', 'auditor')),
    tenant      TEXT NOT NULL REFERENCES tenants (name),
    description TEXT,
    created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    revoked_at  TEXT
) STRICT;

CREATE TABLE bundles (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant     TEXT NOT NULL REFERENCES tenants (name),
    name       TEXT NOT NULL,
    sha256     TEXT NOT NULL CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
    document   TEXT NOT NULL CHECK (json_valid(document)),
    created_by INTEGER REFERENCES tokens (id),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (tenant, sha256)
) STRICT;

CREATE TABLE activations (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant       TEXT NOT NULL REFERENCES tenants (name),
    bundle_id    INTEGER NOT NULL REFERENCES bundles (id),
    previous_id  INTEGER REFERENCES activations (id),
    rollback_of  INTEGER REFERENCES activations (id),
    activated_by INTEGER REFERENCES tokens (id),
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

CREATE INDEX activations_tenant_id_idx ON activations (tenant, id DESC);

-- Bundles and activations are history: never updated, never deleted.
CREATE TRIGGER bundles_immutable_update BEFORE UPDATE ON bundles
BEGIN
    SELECT RAISE(ABORT, 'bundles rows are immutable');
END;
CREATE TRIGGER bundles_immutable_delete BEFORE DELETE ON bundles
BEGIN
    SELECT RAISE(ABORT, 'bundles rows are immutable');
END;
CREATE TRIGGER activations_immutable_update BEFORE UPDATE ON activations
BEGIN
    SELECT RAISE(ABORT, 'activations rows are immutable');
END;
CREATE TRIGGER activations_immutable_delete BEFORE DELETE ON activations
BEGIN
    SELECT RAISE(ABORT, 'activations rows are immutable');
END;
