//! Upgrades of a store that already holds data. For each earlier schema (each prefix of the
//! migration list), a fresh store is migrated to it and filled the way the code of that time
//! wrote it, with plain SQL: a tenant, tokens by hash, two bundles with an activation history
//! (a rollback among it), and audit chains whose hashes are valid for that schema (`v1` rows,
//! and a `v2` row with a `winner_bundle` once the column exists), one of them after a pruned
//! checkpoint. Then the real `toolgate migrate` upgrades it, twice, and a real server runs on it.
//!
//! What an upgrade must keep: the second migration changes nothing and the schema is the one a
//! fresh store gets; `toolgate audit verify` passes, and the server's new rows continue the old
//! chain; the old tokens work with their roles and tenants and never expire; the live policy and
//! the activation history are what they were, and rollback still works; the audit API returns
//! the old rows as they were written.

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::migrate::Migrator;
use toolgate::audit::record::{GENESIS, Row};
use toolgate::on_pool;
use toolgate::startup::Application;
use toolgate::store::{Database, Location, sqlite};

use crate::audit::{audit_rows, verify_cli};
use crate::cli::{stdout, toolgate};
use crate::helpers::{TestApp, create_database, spawn_embedded, spawn_replica, test_config, tool};

/// The migration that made the audit table.
const AUDIT: i64 = 20261201000000;
/// The migration that added `audit.winner_bundle` (and with it `v2` rows).
const WINNER_BUNDLE: i64 = 20261204000000;

/// The tenant the fixture's bundles, agent and auditor belong to.
const TENANT: &str = "acme";
/// The replica whose chain a server continues after the upgrade; its first rows were pruned.
const REPLICA: &str = "upgrade-old-a";
/// Another replica's chain, from its genesis.
const OTHER_REPLICA: &str = "upgrade-old-b";
/// The last seq pruned from [`REPLICA`]'s chain.
const PRUNED_SEQ: i64 = 2;

/// A token the fixture stores by hash, as `toolgate token create` did.
struct Token {
    secret: &'static str,
    role: &'static str,
    tenant: &'static str,
}

const ADMIN: Token = Token {
    secret: "tg_upgrade_fixture_admin_global",
    role: "admin",
    tenant: "global",
};
const AGENT: Token = Token {
    secret: "tg_upgrade_fixture_agent_acme",
    role: "agent",
    tenant: TENANT,
};
const AUDITOR: Token = Token {
    secret: "tg_upgrade_fixture_auditor_acme",
    role: "auditor",
    tenant: TENANT,
};
const TOKENS: [&Token; 3] = [&ADMIN, &AGENT, &AUDITOR];

/// The tenant's two bundles as pushed: their canonical JSON, what a push stores and hashes.
/// The first denies `WebFetch`; the second `mcp__server` too.
const BUNDLES: [&str; 2] = [
    r#"{"name":"one","permissions":{"deny":["WebFetch"]}}"#,
    r#"{"name":"two","permissions":{"deny":["WebFetch","mcp__server"]}}"#,
];

/// The store of one test, before and after the upgrade.
#[derive(Clone, Copy, Debug)]
enum Store {
    Postgres,
    Sqlite,
}

impl Store {
    fn migrator(self) -> &'static Migrator {
        match self {
            Self::Postgres => &toolgate::store::postgres::MIGRATOR,
            Self::Sqlite => &sqlite::MIGRATOR,
        }
    }
}

/// A migrator holding only the first `count` migrations of `migrator`: the schema of an
/// earlier release.
fn prefix(migrator: &Migrator, count: usize) -> Migrator {
    Migrator::with_migrations(migrator.migrations[..count].to_vec())
}

/// Every earlier schema of `store`, upgraded to the newest.
async fn upgrades_keep_everything(store: Store) {
    let count = store.migrator().migrations.len();
    let fresh = fresh_schema(store).await;
    for applied in 1..count {
        let version = store.migrator().migrations[applied - 1].version;
        upgrade_from(store, &prefix(store.migrator(), applied), &fresh)
            .await
            .unwrap_or_else(|error| panic!("upgrading {store:?} from {version}: {error}"));
    }
}

#[tokio::test]
async fn a_populated_postgres_store_upgrades_from_every_earlier_schema() {
    upgrades_keep_everything(Store::Postgres).await;
}

#[tokio::test]
async fn a_populated_sqlite_store_upgrades_from_every_earlier_schema() {
    upgrades_keep_everything(Store::Sqlite).await;
}

/// `20261204000000_audit_winner_bundle.sql` as first committed (9b3e725), before its comment
/// grew a paragraph (1aacfb5): a store migrated by a build of that hour holds this text's
/// checksum, which sqlx compares with the file's before it migrates anything.
const WINNER_BUNDLE_AS_FIRST_COMMITTED: &str = "\
-- The bundle the winning answer came from (`tenant:bundle_id:sha256`, one of `bundles`). An agent
-- of tenant T is evaluated against T's live bundle and `global`'s, and both can hold rules of one
-- id (both including `baseline`, say), so `winner` alone does not say which bundle version
-- decided. NULL when no bundle answered, and in rows written before this column.
--
-- A row with a winner bundle is hashed with the tag `toolgate-audit-v2` and the value after
-- `winner`; rows without one keep the `v1` encoding, so existing chains verify unchanged.
-- Adding a nullable column without a default rewrites nothing.

ALTER TABLE audit ADD COLUMN winner_bundle text;
";

#[tokio::test]
async fn a_postgres_store_migrated_before_a_migration_comment_was_edited_upgrades() {
    use sqlx::SqlSafeStr as _;
    let fresh = fresh_schema(Store::Postgres).await;
    let migrations = Store::Postgres
        .migrator()
        .migrations
        .iter()
        .map(|migration| {
            if migration.version != WINNER_BUNDLE {
                return migration.clone();
            }
            sqlx::migrate::Migration::new(
                migration.version,
                migration.description.clone(),
                migration.migration_type,
                WINNER_BUNDLE_AS_FIRST_COMMITTED.into_sql_str(),
                migration.no_tx,
            )
        });
    let old: Vec<_> = migrations
        .take_while(|migration| migration.version <= WINNER_BUNDLE)
        .collect();
    upgrade_from(Store::Postgres, &Migrator::with_migrations(old), &fresh)
        .await
        .unwrap_or_else(|error| panic!("{error}"));
}

/// A new, empty store of `store`: its URL for the CLI, and a pool of the test's own.
struct Place {
    url: String,
    db: Database,
    data: tempfile::TempDir,
}

impl Place {
    async fn new(store: Store) -> Place {
        let data = tempfile::tempdir().expect("tempdir");
        match store {
            Store::Postgres => {
                let base = std::env::var("DATABASE_URL").expect("DATABASE_URL: run scripts/test");
                let url = create_database(&base).await;
                let pool = sqlx::postgres::PgPoolOptions::new()
                    .max_connections(2)
                    .connect(&url)
                    .await
                    .expect("connect");
                Place {
                    url,
                    db: Database::Postgres(pool),
                    data,
                }
            }
            Store::Sqlite => {
                let location = Location::embedded(data.path());
                location.create_dir().expect("create the SQLite file");
                let file = location.sqlite_file().unwrap();
                let Location::Sqlite(options) = location else {
                    unreachable!("the embedded store is SQLite")
                };
                let pool = sqlite::open(*options, 2, Duration::from_secs(10))
                    .await
                    .expect("open the SQLite store");
                Place {
                    url: format!("sqlite://{}", file.display()),
                    db: Database::Sqlite(pool),
                    data,
                }
            }
        }
    }

    fn data_dir(&self) -> &Path {
        self.data.path()
    }
}

/// The schema a fresh store gets from every migration.
async fn fresh_schema(store: Store) -> Vec<String> {
    let place = Place::new(store).await;
    run(&place.db, store.migrator()).await.expect("migrate");
    let schema = schema(&place.db).await;
    place.db.close().await;
    schema
}

async fn run(db: &Database, migrator: &Migrator) -> Result<(), sqlx::migrate::MigrateError> {
    on_pool!(db, |pool| migrator.run(pool).await)
}

/// What an error of the upgrade says.
type Failure = String;

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), Failure> {
    if ok { Ok(()) } else { Err(what()) }
}

/// Migrates a fresh store with `old`, fills it, upgrades it, and checks what the upgrade must
/// keep.
async fn upgrade_from(store: Store, old: &Migrator, fresh: &[String]) -> Result<(), Failure> {
    let place = Place::new(store).await;
    run(&place.db, old)
        .await
        .map_err(|error| format!("migrating to the old schema: {error}"))?;
    let versions: Vec<i64> = old.migrations.iter().map(|m| m.version).collect();
    let fixture = Fixture::write(&place.db, &versions).await;
    place.db.close().await;

    // The upgrade, by the real binary; again, which must change nothing.
    let env = vec![("DATABASE_URL", place.url.clone())];
    stdout(&toolgate(vec!["migrate".into()], env.clone()).await);
    let db = Place::reopen(store, &place).await;
    let upgraded = schema(&db).await;
    let before = contents(&db).await;
    stdout(&toolgate(vec!["migrate".into()], env).await);
    check(contents(&db).await == before, || {
        "a second `toolgate migrate` changed the store".into()
    })?;
    check(schema(&db).await == upgraded, || {
        "a second `toolgate migrate` changed the schema".into()
    })?;
    check(upgraded == fresh, || {
        format!(
            "the upgraded schema differs from a fresh one:\nonly upgraded: {:#?}\nonly fresh: {:#?}",
            upgraded
                .iter()
                .filter(|l| !fresh.contains(l))
                .collect::<Vec<_>>(),
            fresh
                .iter()
                .filter(|l| !upgraded.contains(l))
                .collect::<Vec<_>>()
        )
    })?;

    // The old chains verify before any server ran on the new schema.
    let (code, out) = verify_cli(&place.url).await;
    check(code == Some(0), || {
        format!("verify after the upgrade: {out}")
    })?;

    // A server on the upgraded store, as the replica whose chain it continues, with no
    // bootstrap token: only the stored ones.
    let configure = |config: &mut toolgate::config::Config| {
        config.replica_id = REPLICA.into();
        config.admin_token = None;
        config.starter_bundle = false;
    };
    let mut app = match store {
        Store::Postgres => spawn_replica(&place.url, configure).await,
        Store::Sqlite => spawn_embedded(place.data_dir(), configure).await,
    };
    app.admin_token = ADMIN.secret.into();
    fixture.check_tokens(&app).await?;
    fixture.check_policy(&app).await?;
    fixture.check_audit_api(&app).await?;
    fixture.check_chain_goes_on(&app).await?;
    let (code, out) = verify_cli(&place.url).await;
    check(code == Some(0), || {
        format!("verify after the server's rows: {out}")
    })?;
    fixture.check_rollback(&app).await?;
    db.close().await;
    Ok(())
}

impl Place {
    /// Another pool on the store of `place`.
    async fn reopen(store: Store, place: &Place) -> Database {
        match store {
            Store::Postgres => Database::Postgres(
                sqlx::postgres::PgPoolOptions::new()
                    .max_connections(2)
                    .connect(&place.url)
                    .await
                    .expect("connect"),
            ),
            Store::Sqlite => {
                let Location::Sqlite(options) = Location::embedded(place.data_dir()) else {
                    unreachable!("the embedded store is SQLite")
                };
                Database::Sqlite(
                    sqlite::open(*options, 2, Duration::from_secs(10))
                        .await
                        .expect("open the SQLite store"),
                )
            }
        }
    }
}

/// The store's schema, one line per column, index, constraint, trigger and function, and the
/// migrations applied (version, description, checksum, success); the month partitions of
/// PostgreSQL's audit table read as one, since a store holds the months it was written in.
async fn schema(db: &Database) -> Vec<String> {
    let mut lines: Vec<String> = match db {
        Database::Postgres(pool) => {
            let mut lines = Vec::new();
            for sql in [
                "SELECT table_name || '.' || column_name || ' ' || data_type || ' ' \
                 || is_nullable || ' ' || coalesce(column_default, '') \
                 FROM information_schema.columns WHERE table_schema = 'public'",
                "SELECT tablename || ' ' || indexdef FROM pg_indexes WHERE schemaname = 'public'",
                "SELECT conrelid::regclass::text || ' ' || conname || ' ' \
                 || pg_get_constraintdef(oid) FROM pg_constraint \
                 WHERE connamespace = 'public'::regnamespace",
                "SELECT tgrelid::regclass::text || ' ' || tgname FROM pg_trigger \
                 WHERE NOT tgisinternal",
                "SELECT proname || ' ' || md5(prosrc) FROM pg_proc \
                 WHERE pronamespace = 'public'::regnamespace",
            ] {
                let found: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "SELECT DISTINCT regexp_replace(line, 'audit_y[0-9]{{4}}m[0-9]{{2}}', \
                     'audit_yYYYYmMM', 'g') FROM ({sql}) AS found(line)"
                )))
                .fetch_all(pool)
                .await
                .expect("read the schema");
                lines.extend(found);
            }
            lines
        }
        Database::Sqlite(pool) => sqlx::query_scalar(
            "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master \
             WHERE name NOT LIKE 'sqlite_%'",
        )
        .fetch_all(pool)
        .await
        .expect("read the schema"),
    };
    let migrations: Vec<(i64, String, Vec<u8>, bool)> = on_pool!(db, |pool| sqlx::query_as(
        "SELECT version, description, checksum, success FROM _sqlx_migrations"
    )
    .fetch_all(pool)
    .await
    .expect("read the applied migrations"));
    lines.extend(
        migrations
            .into_iter()
            .map(|(version, description, checksum, success)| {
                format!(
                    "migration {version} {description} {} {success}",
                    hex::encode(checksum)
                )
            }),
    );
    lines.sort();
    lines.dedup();
    lines
}

/// What the store holds: the applied migrations as recorded (with when they ran) and how many
/// rows each table has.
async fn contents(db: &Database) -> Vec<String> {
    let mut lines: Vec<String> = on_pool!(db, |pool| sqlx::query_scalar(
        "SELECT CAST(version AS TEXT) || ' ' || CAST(installed_on AS TEXT) || ' ' \
         || CAST(execution_time AS TEXT) FROM _sqlx_migrations ORDER BY version"
    )
    .fetch_all(pool)
    .await
    .expect("read the applied migrations"));
    for table in [
        "tenants",
        "tokens",
        "bundles",
        "activations",
        "audit",
        "audit_checkpoints",
    ] {
        let rows: i64 = on_pool!(db, |pool| sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT count(*) FROM {table}"
        )))
        .fetch_one(pool)
        .await
        .expect("count rows"));
        lines.push(format!("{table} {rows}"));
    }
    lines
}

/// What the fixture wrote, with the ids the store gave it.
struct Fixture {
    /// The token ids, in the order of [`TOKENS`].
    token_ids: Vec<i64>,
    /// The bundle ids and sha256s, in the order of [`BUNDLES`].
    bundles: Vec<(i64, String)>,
    /// Every activation of the tenant, oldest first: (id, bundle id, previous, rollback of).
    activations: Vec<Activation>,
    /// The audit rows, in chain order per replica.
    rows: Vec<Row>,
}

type Activation = (i64, i64, Option<i64>, Option<i64>);

fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

impl Fixture {
    /// Writes the fixture into a store migrated to `versions`.
    async fn write(db: &Database, versions: &[i64]) -> Fixture {
        let mut token_ids = Vec::new();
        on_pool!(db, |pool| {
            sqlx::query("INSERT INTO tenants (name) VALUES ($1)")
                .bind(TENANT)
                .execute(pool)
                .await
                .expect("insert the tenant");
            for token in TOKENS {
                // sha256 of the token, as every release stored it.
                let hash = Sha256::digest(token.secret.as_bytes()).to_vec();
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO tokens (hash, prefix, role, tenant, description) \
                     VALUES ($1, $2, $3, $4, $5) RETURNING id",
                )
                .bind(hash)
                .bind(&token.secret[..12])
                .bind(token.role)
                .bind(token.tenant)
                .bind("made before the upgrade")
                .fetch_one(pool)
                .await
                .expect("insert a token");
                token_ids.push(id);
            }
        });
        let admin = token_ids[0];
        let mut bundles = Vec::new();
        for text in BUNDLES {
            let document: Value = serde_json::from_str(text).unwrap();
            // The fixture's text is what a push stores: the validated canonical document.
            let pushed = toolgate_engine::bundle::Bundle::from_value(document.clone())
                .expect("a valid bundle");
            assert_eq!(pushed.sha256(), sha256_hex(text), "{text} is not canonical");
            let id: i64 = on_pool!(db, |pool| sqlx::query_scalar(
                "INSERT INTO bundles (tenant, name, sha256, document, created_by) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING id"
            )
            .bind(TENANT)
            .bind(document["name"].as_str())
            .bind(sha256_hex(text))
            .bind(sqlx::types::Json(&document))
            .bind(admin)
            .fetch_one(pool)
            .await
            .expect("insert a bundle"));
            bundles.push((id, sha256_hex(text)));
        }
        // One, two, a rollback to one, two again: what activate and rollback wrote.
        let (one, two) = (bundles[0].0, bundles[1].0);
        let mut activations: Vec<Activation> = Vec::new();
        for (bundle, previous, rollback_of) in [
            (one, None, None),
            (two, Some(0), None),
            (one, None, Some(1)),
            (two, Some(2), None),
        ] {
            let previous = previous.map(|at: usize| activations[at].0);
            let rollback_of = rollback_of.map(|at: usize| activations[at].0);
            let id: i64 = on_pool!(db, |pool| sqlx::query_scalar(
                "INSERT INTO activations (tenant, bundle_id, previous_id, rollback_of, \
                 activated_by) VALUES ($1, $2, $3, $4, $5) RETURNING id"
            )
            .bind(TENANT)
            .bind(bundle)
            .bind(previous)
            .bind(rollback_of)
            .bind(admin)
            .fetch_one(pool)
            .await
            .expect("insert an activation"));
            activations.push((id, bundle, previous, rollback_of));
        }
        let mut fixture = Fixture {
            token_ids,
            bundles,
            activations,
            rows: Vec::new(),
        };
        if versions.contains(&AUDIT) {
            fixture.rows = audit_chains(&fixture.bundles, versions.contains(&WINNER_BUNDLE));
            write_audit(db, &fixture.rows).await;
        }
        fixture
    }

    /// The old tokens authenticate, with their roles and tenants, and never expire.
    async fn check_tokens(&self, app: &TestApp) -> Result<(), Failure> {
        let listed = app.db.list_tokens(None).await.expect("list the tokens");
        for (token, id) in TOKENS.iter().zip(&self.token_ids) {
            let row = listed.iter().find(|row| row.id == *id);
            check(
                row.is_some_and(|row| {
                    row.role == token.role
                        && row.tenant == token.tenant
                        && row.expires_at.is_none()
                        && row.revoked_at.is_none()
                }),
                || format!("token {id} reads back as {row:?}"),
            )?;
        }
        // The agent is evaluated against its tenant's live bundle (two).
        let decision = app.decide(AGENT.secret, &tool("mcp__server")).await;
        check(decision == "deny", || {
            format!("the old agent token got `{decision}`, not its tenant's deny")
        })?;
        let status = |response: reqwest::Response| response.status();
        let bundles = format!("/v1/tenants/{TENANT}/bundles");
        for (token, path, expected) in [
            (&ADMIN, bundles.as_str(), StatusCode::OK),
            (&AUDITOR, "/v1/audit", StatusCode::OK),
            (&AGENT, "/v1/audit", StatusCode::FORBIDDEN),
            (&AUDITOR, "/v1/tenants/other/policy", StatusCode::FORBIDDEN),
        ] {
            let got = status(app.get_as(token.secret, path).await);
            check(got == expected, || {
                format!("GET {path} as the old {} token: {got}", token.role)
            })?;
        }
        let document: Value = serde_json::from_str(BUNDLES[0]).unwrap();
        let got = status(app.push_as(AUDITOR.secret, TENANT, &document).await);
        check(got == StatusCode::FORBIDDEN, || {
            format!("a push as the old auditor token: {got}")
        })
    }

    /// The live policy and the activation history are what they were.
    async fn check_policy(&self, app: &TestApp) -> Result<(), Failure> {
        let (live, bundle, _, _) = *self.activations.last().unwrap();
        app.wait_served(TENANT, live).await;
        let policy = app.policy(TENANT).await;
        let sha256 = &self.bundles[1].1;
        check(
            policy["live"]["id"] == live
                && policy["served"]["bundle_id"] == bundle
                && policy["served"]["sha256"] == sha256.as_str(),
            || format!("the live policy after the upgrade: {policy}"),
        )?;
        let history = activations(&app.db).await;
        check(history == self.activations, || {
            format!("the activation history after the upgrade: {history:?}")
        })
    }

    /// The audit API returns the old rows as they were written: every one to a global admin,
    /// the tenant's to its auditor.
    async fn check_audit_api(&self, app: &TestApp) -> Result<(), Failure> {
        for (token, tenant) in [(&ADMIN, None), (&AUDITOR, Some(TENANT))] {
            let answer: Value = app
                .get_as(token.secret, "/v1/audit?limit=1000")
                .await
                .json()
                .await
                .expect("the audit as JSON");
            let got: Vec<&Value> = answer["rows"].as_array().unwrap().iter().collect();
            let mut expected: Vec<Value> = self
                .rows
                .iter()
                .filter(|row| tenant.is_none() || row.tenant.as_deref() == tenant)
                .map(Row::to_json)
                .collect();
            expected.sort_by(|a, b| b["time"].as_str().cmp(&a["time"].as_str()));
            let old: Vec<&Value> = got
                .iter()
                .copied()
                .filter(|row| self.rows.iter().any(|old| row["id"] == old.id.as_str()))
                .collect();
            check(old == expected.iter().collect::<Vec<_>>(), || {
                format!("GET /v1/audit as the {}: {old:#?}", token.role)
            })?;
        }
        Ok(())
    }

    /// A server running as the old replica chains its new rows onto the old ones (onto the
    /// genesis when there were none): the one [`Fixture::check_tokens`] made and three more.
    async fn check_chain_goes_on(&self, app: &TestApp) -> Result<(), Failure> {
        for _ in 0..3 {
            app.decide(AGENT.secret, &tool("WebFetch")).await;
        }
        let (head_seq, head_hash) = self
            .rows
            .iter()
            .rfind(|row| row.replica_id == REPLICA)
            .map_or((0, GENESIS), |row| (row.seq, row.hash));
        let rows = audit_rows(&app.db).await;
        let new: Vec<&Value> = rows
            .iter()
            .filter(|row| row["replica_id"] == REPLICA && row["seq"].as_i64() > Some(head_seq))
            .collect();
        let seqs: Vec<i64> = new.iter().filter_map(|row| row["seq"].as_i64()).collect();
        check(
            seqs == (head_seq + 1..=head_seq + 4).collect::<Vec<_>>()
                && new[0]["prev_hash"] == hex::encode(head_hash)
                && new
                    .iter()
                    .all(|row| row["tenant"] == TENANT && row["decision"] == "deny"),
            || format!("the server's rows do not continue the chain at {head_seq}: {new:#?}"),
        )
    }

    /// Rollback still works: back to the bundle before the live one.
    async fn check_rollback(&self, app: &TestApp) -> Result<(), Failure> {
        let response = app.rollback(TENANT).await;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or_default();
        check(
            status == StatusCode::CREATED || status == StatusCode::OK,
            || format!("rollback after the upgrade: {status} {body}"),
        )?;
        let (live, _, _, _) = *self.activations.last().unwrap();
        let (_, before, before_previous, _) = self.activations[self.activations.len() - 2];
        let id = body["id"].as_i64().unwrap_or_default();
        check(
            body["bundle_id"] == before
                && body["previous_id"] == before_previous.map_or(Value::Null, Value::from)
                && body["rollback_of"] == live,
            || format!("the rollback after the upgrade: {body}"),
        )?;
        app.wait_served(TENANT, id).await;
        let decision = app.decide(AGENT.secret, &tool("mcp__server")).await;
        check(decision == "none", || {
            format!("bundle one, live again, does not deny mcp__server: got `{decision}`")
        })
    }
}

/// Every activation of [`TENANT`], oldest first.
async fn activations(db: &Database) -> Vec<Activation> {
    on_pool!(db, |pool| sqlx::query_as(
        "SELECT id, bundle_id, previous_id, rollback_of FROM activations \
         WHERE tenant = $1 ORDER BY id"
    )
    .bind(TENANT)
    .fetch_all(pool)
    .await
    .expect("read the activations"))
}

/// Two replicas' chains: [`REPLICA`]'s after a pruned checkpoint at [`PRUNED_SEQ`], over two
/// months, [`OTHER_REPLICA`]'s from its genesis. Rows of every shape the columns allow: nulls
/// and empty lists, a shadow hit, a repeat, a failure, several bundles. With `winner_bundle`
/// (a schema that has the column), the newest row of each chain names the bundle that won and
/// is a `v2` row.
fn audit_chains(bundles: &[(i64, String)], winner_bundle: bool) -> Vec<Row> {
    let now = Utc::now().timestamp_micros();
    let day = 86_400_000_000;
    let acme = |at: usize| format!("{TENANT}:{}:{}", bundles[at].0, bundles[at].1);
    let base = |replica: &str, seq: i64, time_us: i64| Row {
        id: uuid_like(replica, seq),
        time_us,
        replica_id: replica.to_owned(),
        seq,
        prev_hash: GENESIS,
        hash: GENESIS,
        tenant: Some(TENANT.to_owned()),
        agent: "claude-code".into(),
        session_id: Some("session-1".into()),
        tool_use_id: Some(format!("toolu_{seq}")),
        prompt_id: None,
        event: "PreToolUse".into(),
        tool: Some("WebFetch".into()),
        decision: "deny".into(),
        mode: "enforced".into(),
        shadow_decision: None,
        winner: Some("deny:WebFetch".into()),
        winner_bundle: None,
        rules: vec!["deny:WebFetch".into()],
        shadow_rules: Vec::new(),
        reason: Some("denied by `WebFetch` ✗".into()),
        bundles: vec![acme(1)],
        input: r#"{"tool_input":{"prompt":"read it","url":"https://example.com/"}}"#.into(),
        cwd: Some("/tmp/p".into()),
        permission_mode: Some("default".into()),
        latency_us: 120,
        repeat: false,
        failure: false,
    };
    let mut rows = vec![
        Row {
            bundles: vec![acme(0)],
            ..base(REPLICA, PRUNED_SEQ + 1, now - 40 * day)
        },
        Row {
            tenant: None,
            session_id: None,
            tool_use_id: None,
            event: "UserPromptSubmit".into(),
            tool: None,
            decision: "deny".into(),
            winner: None,
            rules: Vec::new(),
            reason: Some("no policy".into()),
            bundles: Vec::new(),
            input: "{}".into(),
            cwd: None,
            permission_mode: None,
            latency_us: 0,
            failure: true,
            ..base(REPLICA, PRUNED_SEQ + 2, now - 39 * day)
        },
        Row {
            decision: "allow".into(),
            mode: "shadow".into(),
            shadow_decision: Some("ask".into()),
            winner: Some("allow:Read".into()),
            rules: vec!["allow:Read".into(), "warn \"x\"".into()],
            shadow_rules: vec!["warn \"x\"".into()],
            reason: None,
            bundles: vec![format!("global:9:{}", "0".repeat(64)), acme(1)],
            prompt_id: Some("prompt-1".into()),
            repeat: true,
            ..base(REPLICA, PRUNED_SEQ + 3, now - 2 * day)
        },
        base(REPLICA, PRUNED_SEQ + 4, now - 3_600_000_000),
        Row {
            agent: "cursor".into(),
            decision: "none".into(),
            winner: None,
            rules: Vec::new(),
            reason: None,
            ..base(OTHER_REPLICA, 1, now - 3 * day)
        },
        base(OTHER_REPLICA, 2, now - 7_200_000_000),
    ];
    if winner_bundle {
        for at in [3, 5] {
            rows[at].winner_bundle = Some(acme(1));
        }
    }
    // Chained per replica, from the pruned checkpoint or the genesis.
    let mut previous: Option<(String, [u8; 32])> = None;
    for row in &mut rows {
        row.prev_hash = match &previous {
            Some((replica, hash)) if *replica == row.replica_id => *hash,
            _ if row.replica_id == REPLICA => checkpoint_hash(),
            _ => GENESIS,
        };
        // The encoding is pinned apart, by a hash worked out by hand (`record.rs`).
        row.hash = row.compute_hash();
        previous = Some((row.replica_id.clone(), row.hash));
    }
    rows
}

/// The hash of [`REPLICA`]'s last pruned row.
fn checkpoint_hash() -> [u8; 32] {
    Sha256::digest(b"the pruned head").into()
}

/// A fixed UUIDv7-shaped id per row.
fn uuid_like(replica: &str, seq: i64) -> String {
    let digest = hex::encode(Sha256::digest(format!("{replica}/{seq}").as_bytes()));
    format!(
        "{}-{}-7{}-8{}-{}",
        &digest[..8],
        &digest[8..12],
        &digest[12..15],
        &digest[15..18],
        &digest[18..30]
    )
}

/// The audit columns both stores name alike, in the order [`bind_row!`] binds them after the id
/// and the time.
const AUDIT_COLUMNS: &str = "replica_id, seq, prev_hash, hash, tenant, agent, session_id, \
    tool_use_id, prompt_id, event, tool, decision, mode, shadow_decision, winner, rules, \
    shadow_rules, reason, bundles, input, cwd, permission_mode, latency_us, repeat, failure";

/// `INSERT INTO audit` of one row: `id` (as `id_value` reads it), `time` (the store's column),
/// [`AUDIT_COLUMNS`], and `winner_bundle` when the row has one.
fn audit_insert(time: &str, id_value: &str, row: &Row) -> String {
    let (winner, columns) = match row.winner_bundle {
        Some(_) => (", winner_bundle", 28),
        None => ("", 27),
    };
    let values: Vec<String> = (3..=columns).map(|at| format!("${at}")).collect();
    format!(
        "INSERT INTO audit (id, {time}, {AUDIT_COLUMNS}{winner}) VALUES ({id_value}, $2, {})",
        values.join(", ")
    )
}

/// The insert of `$row` with its values bound: the time as `$time`, each list as `$list` makes
/// it (a `text[]` on PostgreSQL, JSON text on SQLite).
macro_rules! bind_row {
    ($sql:expr, $row:expr, $time:expr, $list:expr) => {{
        let row: &Row = $row;
        let query = sqlx::query(sqlx::AssertSqlSafe($sql))
            .bind(row.id.as_str())
            .bind($time)
            .bind(row.replica_id.as_str())
            .bind(row.seq)
            .bind(&row.prev_hash[..])
            .bind(&row.hash[..])
            .bind(row.tenant.as_deref())
            .bind(row.agent.as_str())
            .bind(row.session_id.as_deref())
            .bind(row.tool_use_id.as_deref())
            .bind(row.prompt_id.as_deref())
            .bind(row.event.as_str())
            .bind(row.tool.as_deref())
            .bind(row.decision.as_str())
            .bind(row.mode.as_str())
            .bind(row.shadow_decision.as_deref())
            .bind(row.winner.as_deref())
            .bind($list(&row.rules))
            .bind($list(&row.shadow_rules))
            .bind(row.reason.as_deref())
            .bind($list(&row.bundles))
            .bind(row.input.as_str())
            .bind(row.cwd.as_deref())
            .bind(row.permission_mode.as_deref())
            .bind(row.latency_us)
            .bind(row.repeat)
            .bind(row.failure);
        match row.winner_bundle.as_deref() {
            Some(bundle) => query.bind(bundle),
            None => query,
        }
    }};
}

/// Writes the audit rows and [`REPLICA`]'s pruned checkpoint as the writer and `audit prune` of
/// their schema did: PostgreSQL's month partitions made first, a `winner_bundle` only where a
/// row has one (the column exists then).
async fn write_audit(db: &Database, rows: &[Row]) {
    for row in rows {
        match db {
            Database::Postgres(pool) => {
                sqlx::query("SELECT toolgate_audit_partition($1)")
                    .bind(row.time())
                    .execute(pool)
                    .await
                    .expect("create the month's partition");
                let sql = audit_insert("time", "$1::uuid", row);
                bind_row!(sql, row, row.time(), |items: &Vec<String>| items.clone())
                    .execute(pool)
                    .await
                    .expect("insert an audit row");
            }
            Database::Sqlite(pool) => {
                let sql = audit_insert("time_us", "$1", row);
                let json = |items: &Vec<String>| serde_json::to_string(items).unwrap();
                bind_row!(sql, row, row.time_us, json)
                    .execute(pool)
                    .await
                    .expect("insert an audit row");
            }
        }
    }
    let first = rows.first().map_or(0, |row| row.time_us);
    let pruned = DateTime::from_timestamp_micros(first - 86_400_000_000).unwrap();
    let hash = checkpoint_hash().to_vec();
    match db {
        Database::Postgres(pool) => sqlx::query(
            "INSERT INTO audit_checkpoints (replica_id, seq, hash, time) VALUES ($1, $2, $3, $4)",
        )
        .bind(REPLICA)
        .bind(PRUNED_SEQ)
        .bind(hash)
        .bind(pruned)
        .execute(pool)
        .await
        .map(drop),
        Database::Sqlite(pool) => sqlx::query(
            "INSERT INTO audit_checkpoints (replica_id, seq, hash, time_us) \
             VALUES ($1, $2, $3, $4)",
        )
        .bind(REPLICA)
        .bind(PRUNED_SEQ)
        .bind(hash)
        .bind(pruned.timestamp_micros())
        .execute(pool)
        .await
        .map(drop),
    }
    .expect("insert the pruned checkpoint");
}

/// A store that a newer build migrated (one migration this build does not know): this build
/// refuses to start on it, saying why and what to do, where it used to start and serve its
/// policy cache as if the database were away, blind to activations and revocations. `toolgate
/// migrate` says the same; with `--no-migrate` it runs on the newer schema.
#[tokio::test]
async fn a_store_a_newer_build_migrated_is_refused_at_start_saying_what_to_do() {
    for store in [Store::Postgres, Store::Sqlite] {
        let place = Place::new(store).await;
        run(&place.db, store.migrator()).await.expect("migrate");
        on_pool!(&place.db, |pool| sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, \
             execution_time) VALUES (29990101000000, 'a newer build', TRUE, $1, 0)"
        )
        .bind(vec![0_u8; 48])
        .execute(pool)
        .await
        .map(|_| ())
        .expect("record a newer migration"));
        place.db.close().await;

        let config = |migrate: bool| {
            let mut config = match store {
                Store::Postgres => test_config(&place.url),
                Store::Sqlite => {
                    let mut config = test_config("");
                    let embedded = toolgate::config::Config::embedded(place.data_dir());
                    config.database_url = embedded.database_url;
                    config.data_dir = embedded.data_dir;
                    config
                }
            };
            config.cache_dir = place.data_dir().join("cache");
            config.audit.spool_dir = place.data_dir().join("spool");
            config.migrate = migrate;
            config
        };
        let error = match Application::build(config(true)).await {
            Ok(_) => panic!("{store:?}: a build started on a store a newer build migrated"),
            Err(error) => format!("{error:#}"),
        };
        for said in ["29990101000000", "newer", "--no-migrate"] {
            assert!(error.contains(said), "{store:?}: {error}");
        }
        let out = toolgate(
            vec!["migrate".into()],
            vec![("DATABASE_URL", place.url.clone())],
        )
        .await;
        assert_eq!(out.status.code(), Some(1), "{store:?}: {out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("newer toolgate migrated it"),
            "{store:?}: {said}"
        );

        let app = Application::build(config(false))
            .await
            .unwrap_or_else(|error| panic!("{store:?} with --no-migrate: {error:#}"));
        assert!(app.local_addr().is_ok());
    }
}
