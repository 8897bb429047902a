-- The audit log: one row per evaluated hook event, partitioned by month, chained per replica.
--
-- Rows are written by each replica's audit writer (multi-row INSERT … ON CONFLICT DO NOTHING, so
-- replays from the spool are idempotent). `hash` = sha256 over a canonical encoding of the row and
-- `prev_hash` (see src/audit/record.rs); `toolgate audit verify` recomputes every chain.

CREATE TABLE audit (
    id              uuid NOT NULL,
    time            timestamptz NOT NULL,
    replica_id      text NOT NULL,
    seq             bigint NOT NULL CHECK (seq > 0),
    prev_hash       bytea NOT NULL CHECK (length(prev_hash) = 32),
    hash            bytea NOT NULL CHECK (length(hash) = 32),
    tenant          text,
    agent           text NOT NULL,
    session_id      text,
    tool_use_id     text,
    prompt_id       text,
    event           text NOT NULL,
    tool            text,
    decision        text NOT NULL CHECK (decision IN ('deny', 'ask', 'allow', 'none')),
    mode            text NOT NULL CHECK (mode IN ('enforced', 'shadow')),
    shadow_decision text CHECK (shadow_decision IN ('deny', 'ask', 'allow', 'none')),
    winner          text,
    rules           text[] NOT NULL,
    shadow_rules    text[] NOT NULL,
    reason          text,
    bundles         text[] NOT NULL,
    input           text NOT NULL,
    cwd             text,
    permission_mode text,
    latency_us      bigint NOT NULL,
    repeat          boolean NOT NULL,
    failure         boolean NOT NULL,
    -- A unique key must hold the partition key; (replica_id, seq) alone is checked by verify.
    PRIMARY KEY (replica_id, seq, time)
) PARTITION BY RANGE (time);

-- The query API's keyset order is (time DESC, id DESC), filtered by tenant first.
CREATE INDEX audit_tenant_time_idx ON audit (tenant, time DESC, id DESC);
CREATE INDEX audit_time_idx ON audit (time DESC, id DESC);
CREATE INDEX audit_session_idx ON audit (session_id, time DESC);
CREATE INDEX audit_tenant_decision_idx ON audit (tenant, decision, time DESC);
CREATE INDEX audit_rules_idx ON audit USING gin (rules);

-- The last pruned row of each replica's chain, so that verify knows where the kept chain starts.
CREATE TABLE audit_checkpoints (
    replica_id text PRIMARY KEY,
    seq        bigint NOT NULL,
    hash       bytea NOT NULL CHECK (length(hash) = 32),
    time       timestamptz NOT NULL,
    pruned_at  timestamptz NOT NULL DEFAULT now()
);

-- Creates the month partition holding `at` (named audit_yYYYYmMM) unless it exists. Safe to call
-- from several replicas at once.
CREATE FUNCTION toolgate_audit_partition(at timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    month_start timestamptz := date_trunc('month', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    name text := 'audit_y' || to_char(month_start AT TIME ZONE 'UTC', 'YYYY') || 'm'
                 || to_char(month_start AT TIME ZONE 'UTC', 'MM');
BEGIN
    IF to_regclass(name) IS NULL THEN
        BEGIN
            EXECUTE format(
                'CREATE TABLE %I PARTITION OF audit FOR VALUES FROM (%L) TO (%L)',
                name, month_start, month_start + interval '1 month');
        EXCEPTION WHEN duplicate_table OR unique_violation THEN
            NULL; -- another replica created it first
        END;
    END IF;
    RETURN name;
END;
$$;

SELECT toolgate_audit_partition(now());
SELECT toolgate_audit_partition(now() + interval '1 month');
