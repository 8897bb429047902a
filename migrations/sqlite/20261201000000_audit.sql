-- The audit log on the embedded store: the same rows as PostgreSQL's `20261201000000_audit.sql`,
-- chained per replica the same way (the hash is computed by toolgate, not by the database).
--
-- Differences, because SQLite has no partitions, arrays or timestamptz: one table (pruning
-- deletes whole months of rows), `time_us` is microseconds since the Unix epoch (the exact value
-- the row's hash covers), and the lists (`rules`, `shadow_rules`, `bundles`) are JSON arrays.

CREATE TABLE audit (
    id              TEXT NOT NULL,
    time_us         INTEGER NOT NULL,
    replica_id      TEXT NOT NULL,
    seq             INTEGER NOT NULL CHECK (seq > 0),
    prev_hash       BLOB NOT NULL CHECK (length(prev_hash) = 32),
    hash            BLOB NOT NULL CHECK (length(hash) = 32),
    tenant          TEXT,
    agent           TEXT NOT NULL,
    session_id      TEXT,
    tool_use_id     TEXT,
    prompt_id       TEXT,
    event           TEXT NOT NULL,
    tool            TEXT,
    decision        TEXT NOT NULL CHECK (decision IN ('deny', 'ask', 'allow', 'none')),
    mode            TEXT NOT NULL CHECK (mode IN ('enforced', 'shadow')),
    shadow_decision TEXT CHECK (shadow_decision IN ('deny', 'ask', 'allow', 'none')),
    winner          TEXT,
    rules           TEXT NOT NULL CHECK (json_type(rules) = 'array'),
    shadow_rules    TEXT NOT NULL CHECK (json_type(shadow_rules) = 'array'),
    reason          TEXT,
    bundles         TEXT NOT NULL CHECK (json_type(bundles) = 'array'),
    input           TEXT NOT NULL,
    cwd             TEXT,
    permission_mode TEXT,
    latency_us      INTEGER NOT NULL,
    repeat          INTEGER NOT NULL CHECK (repeat IN (0, 1)),
    failure         INTEGER NOT NULL CHECK (failure IN (0, 1)),
    -- The same key as PostgreSQL's, so replays are ignored the same way.
    PRIMARY KEY (replica_id, seq, time_us)
) STRICT;

-- The query API's keyset order is (time DESC, id DESC), filtered by tenant first.
CREATE INDEX audit_tenant_time_idx ON audit (tenant, time_us DESC, id DESC);
CREATE INDEX audit_time_idx ON audit (time_us DESC, id DESC);
CREATE INDEX audit_session_idx ON audit (session_id, time_us DESC);

-- The last pruned row of each replica's chain, so that verify knows where the kept chain starts.
CREATE TABLE audit_checkpoints (
    replica_id TEXT PRIMARY KEY,
    seq        INTEGER NOT NULL,
    hash       BLOB NOT NULL CHECK (length(hash) = 32),
    time_us    INTEGER NOT NULL,
    pruned_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
