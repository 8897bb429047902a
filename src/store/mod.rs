//! Where bundles, activations, tokens and tenants live ([`Database`]: PostgreSQL, [`postgres`],
//! or the embedded SQLite file, [`sqlite`]) and how the live policies get from there into every
//! replica's memory ([`reload`]) and its disk cache ([`cache`]). [`starter`] is the bundle an
//! empty embedded store starts with.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use sqlx::sqlite::SqliteConnectOptions;

pub mod cache;
pub mod database;
pub mod postgres;
pub mod reload;
pub mod sqlite;
pub mod starter;

pub use database::{
    ActivateError, Activation, BundleSummary, Database, LiveRow, NewToken, StoredBundle,
    TOKENS_CHANGED, TokenListing, TokenRow, explain_migrate_error, is_migration_failure,
    is_unavailable,
};

/// Creates `dir` (and its missing parents) for toolgate's own data — the embedded store, the
/// policy cache, the audit spool — readable by the service's user only, whatever the umask: they
/// hold prompts and tool input (masked), token hashes and policies, which a developer's usual
/// umask would open to every local account. A directory that exists is left as it is.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Options that create a file readable and writable by its owner only (see
/// [`create_private_dir`]); a file that exists keeps its mode.
pub fn private_file() -> std::fs::OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = std::fs::OpenOptions::new();
    options.mode(0o600);
    options
}

/// Where the store is, from `DATABASE_URL` and the data directory.
#[derive(Debug, Clone)]
pub enum Location {
    /// A PostgreSQL URL (never logged: it may hold a password).
    Postgres(String),
    /// An SQLite file.
    Sqlite(Box<SqliteConnectOptions>),
}

impl Location {
    /// `database_url` when given — `postgres://…`/`postgresql://…`, or `sqlite://path` — else the
    /// embedded file `<data_dir>/toolgate.db`.
    pub fn resolve(database_url: Option<&str>, data_dir: &Path) -> Result<Self, String> {
        let Some(url) = database_url.filter(|url| !url.is_empty()) else {
            return Ok(Self::embedded(data_dir));
        };
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Self::Postgres(url.to_owned()))
        } else if url.starts_with("sqlite:") {
            SqliteConnectOptions::from_str(url)
                .map(|options| Self::Sqlite(Box::new(options)))
                .map_err(|error| format!("invalid SQLite DATABASE_URL: {error}"))
        } else {
            Err(
                "DATABASE_URL must start with `postgres://`, `postgresql://` or `sqlite://`"
                    .to_owned(),
            )
        }
    }

    /// The embedded file in `data_dir`.
    pub fn embedded(data_dir: &Path) -> Self {
        Self::Sqlite(Box::new(
            SqliteConnectOptions::new().filename(data_dir.join(sqlite::FILE_NAME)),
        ))
    }

    /// Whether `database_url` names the embedded store (unset, empty, or `sqlite:`).
    pub fn is_embedded_url(database_url: Option<&str>) -> bool {
        database_url.is_none_or(|url| url.is_empty() || url.starts_with("sqlite:"))
    }

    /// The SQLite file, for SQLite.
    pub fn sqlite_file(&self) -> Option<PathBuf> {
        match self {
            Self::Postgres(_) => None,
            Self::Sqlite(options) => Some(options.get_filename().to_owned()),
        }
    }

    /// What to say in logs: `postgres` (never its URL: it may hold a password), or
    /// `sqlite:<file>`.
    pub fn describe(&self) -> String {
        match self.sqlite_file() {
            None => "postgres".to_owned(),
            Some(file) => format!("sqlite:{}", file.display()),
        }
    }

    /// Creates the directory an SQLite file goes in, and the file, empty, when it is missing —
    /// both private ([`create_private_dir`], [`private_file`]; SQLite gives its `-wal` and
    /// `-shm` files the database file's mode). Nothing for PostgreSQL or in-memory SQLite.
    pub fn create_dir(&self) -> std::io::Result<()> {
        let Some(file) = self.sqlite_file() else {
            return Ok(());
        };
        if file.as_os_str().is_empty() || file.as_os_str() == ":memory:" {
            return Ok(());
        }
        if let Some(dir) = file.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            create_private_dir(dir)?;
        }
        private_file()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&file)
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every migration that has shipped, with its checksum (sha384 of the file, as sqlx
    /// records it). sqlx refuses to migrate a store whose recorded checksum differs from the
    /// file's, so a shipped migration is never edited, not even in a comment: a change is a new
    /// migration, and a new line here.
    const SHIPPED: [(&str, i64, &str); 12] = [
        (
            "postgres",
            20261122000000,
            "20e62a96b214293b0d6f2b6c994b6f23d93e55c00d1cb960db6257917d5adae6c5f82c9b9dba6e6d4e1742b96ecf985e",
        ),
        (
            "postgres",
            20261201000000,
            "7ee392992387d5920f3e563a2a0df0ce2bd35f86dcbb397d0ce249f11fad84384011ff78649abb5d2abe8fcea94172de",
        ),
        (
            "postgres",
            20261202000000,
            "f3c29e7ba0773c3ee790e2441d6935faa1ce874b2935295eb9f6bb459adfc9427c813d526e3a881e3f713758b5582928",
        ),
        (
            "postgres",
            20261203000000,
            "3a056be23c9377c39bd9979bcb2865fb1df483bd654061b0cf61563339afbc7296733adbfcfe23290503604d10cca9f4",
        ),
        (
            "postgres",
            20261204000000,
            "cd59820c63f6257f0916317523cfa072c44276c7cbd41a1e69e6640bf6edfc3e6798e5e6ed773f93c039e7407d74e171",
        ),
        (
            "postgres",
            20261205000000,
            "6d2e00fcda7767d1828d5803c96f42a5cced4047319906026ba9d39f5df1838352c6e56964bb7288b62bb944b4940137",
        ),
        (
            "postgres",
            20261206000000,
            "25d8b745251c2054b56cc80bd8b43182aacc6a1322502e9b7797e1afc5b8c4dc87fc726abfb59553a9a90de70c685dc2",
        ),
        (
            "sqlite",
            20261122000000,
            "317fec9ac90113a5c44bc111a9e3fa5a6e3efcb47b743fe3619e9e6bbdd3acf01a43173dfbad703ca8d2940facf3472d",
        ),
        (
            "sqlite",
            20261201000000,
            "022db3e60f5e64fc4e77edfe29e0248d13087ca3f79a234a809ba7cc06d11b49bb21e83196efb658308cfe3ab9dbe7a2",
        ),
        (
            "sqlite",
            20261204000000,
            "9b92b7d4c70535edd09909ca6b33424eccb794f9cfc43f8129d2bd9e2b97b7f69f674fd72deda4435a3f64e4087b5635",
        ),
        (
            "sqlite",
            20261205000000,
            "4958afafbde9c367d5afcb9ac1d5fd03ec28e30f96c5cd92e8ffce97cf15b3bf53e6e20075bc8247f5f96fef9ad70ecd",
        ),
        (
            "sqlite",
            20261206000000,
            "bed6fe37db0d6e279bff5722185ba5b3f8b1ef01e71852f945725171316c485ddeec78539a603877af2b248f72678dd3",
        ),
    ];

    #[test]
    fn shipped_migrations_are_never_edited() {
        let found: Vec<(&str, i64, String)> = [
            ("postgres", &postgres::MIGRATOR),
            ("sqlite", &sqlite::MIGRATOR),
        ]
        .into_iter()
        .flat_map(|(store, migrator)| {
            migrator
                .iter()
                .map(move |m| (store, m.version, hex::encode(&*m.checksum)))
        })
        .collect();
        let shipped: Vec<(&str, i64, String)> = SHIPPED
            .iter()
            .map(|(store, version, checksum)| (*store, *version, (*checksum).to_owned()))
            .collect();
        assert_eq!(
            found, shipped,
            "a shipped migration was edited (add a new one instead), or a new migration needs \
             its line in SHIPPED"
        );
    }

    #[test]
    fn locations_resolve() {
        let dir = Path::new("/data");
        let embedded = Location::resolve(None, dir).unwrap();
        assert_eq!(
            embedded.sqlite_file(),
            Some(PathBuf::from("/data/toolgate.db"))
        );
        assert_eq!(embedded.describe(), "sqlite:/data/toolgate.db");
        assert!(
            Location::resolve(Some(""), dir)
                .unwrap()
                .sqlite_file()
                .is_some()
        );
        let explicit = Location::resolve(Some("sqlite:///tmp/x/t.db"), dir).unwrap();
        assert_eq!(explicit.sqlite_file(), Some(PathBuf::from("/tmp/x/t.db")));
        let pg = Location::resolve(Some("postgres://u:secret@h/db"), dir).unwrap();
        assert_eq!(pg.describe(), "postgres");
        assert!(Location::resolve(Some("mysql://h/db"), dir).is_err());
        assert!(Location::is_embedded_url(None));
        assert!(Location::is_embedded_url(Some("sqlite://t.db")));
        assert!(!Location::is_embedded_url(Some("postgresql://h/db")));
    }
}
