-- Tenants, tokens (hashes only), bundles (immutable), activations (history; newest is live).

CREATE TABLE tenants (
    name       text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
    created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO tenants (name) VALUES ('global');

CREATE TABLE tokens (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    hash        bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
    prefix      text NOT NULL,
    role        text NOT NULL CHECK (role IN ('agent', 'admin', 'auditor')),
    tenant      text NOT NULL REFERENCES tenants (name),
    description text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE TABLE bundles (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant     text NOT NULL REFERENCES tenants (name),
    name       text NOT NULL,
    sha256     text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    document   jsonb NOT NULL,
    created_by bigint REFERENCES tokens (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant, sha256)
);

CREATE TABLE activations (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant       text NOT NULL REFERENCES tenants (name),
    bundle_id    bigint NOT NULL REFERENCES bundles (id),
    previous_id  bigint REFERENCES activations (id),
    rollback_of  bigint REFERENCES activations (id),
    activated_by bigint REFERENCES tokens (id),
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX activations_tenant_id_idx ON activations (tenant, id DESC);

-- Bundles and activations are history: never updated, never deleted.
CREATE FUNCTION toolgate_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are immutable', TG_TABLE_NAME;
END;
$$;

CREATE TRIGGER bundles_immutable BEFORE UPDATE OR DELETE ON bundles
    FOR EACH ROW EXECUTE FUNCTION toolgate_refuse_change();
CREATE TRIGGER activations_immutable BEFORE UPDATE OR DELETE ON activations
    FOR EACH ROW EXECUTE FUNCTION toolgate_refuse_change();
