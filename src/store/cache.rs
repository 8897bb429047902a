//! The local disk cache of the last good live policies (and token hashes), so that a replica
//! that starts while the database is down can serve.
//!
//! One JSON file, `policies.json`, written to a temporary file, fsynced and renamed over the old
//! one, so a crash never leaves a torn cache. It holds only what the database holds: bundle
//! documents and token *hashes*, never a token.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::database::LiveRow;

/// The cache file's format version.
const FORMAT: u32 = 1;

/// A token hash and what it grants, as cached.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct CachedToken {
    /// sha256 of the token, hex.
    pub hash: String,
    /// The token's row id.
    pub id: i64,
    /// Its role.
    pub role: String,
    /// Its tenant.
    pub tenant: String,
    /// When it expires (`None`: never; absent in caches written before tokens could expire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// What the cache file holds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CacheContents {
    /// The format version.
    pub format: u32,
    /// The replica that wrote it.
    pub written_by: String,
    /// The live bundles.
    pub policies: Vec<LiveRow>,
    /// The tokens that were valid.
    pub tokens: Vec<CachedToken>,
}

/// The cache file of one replica (or of several sharing a directory).
#[derive(Debug, Clone)]
pub struct Cache {
    path: PathBuf,
}

impl Cache {
    /// The cache in `dir`.
    pub fn new(dir: &Path) -> Self {
        Self {
            path: dir.join("policies.json"),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the contents atomically (temp file, fsync, rename, fsync of the directory).
    pub fn write(&self, contents: &CacheContents) -> anyhow::Result<()> {
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        super::create_private_dir(dir)
            .with_context(|| format!("failed to create `{}`", dir.display()))?;
        let temp = dir.join(format!(".policies.json.{}.tmp", std::process::id()));
        let bytes = serde_json::to_vec(&CacheContents {
            format: FORMAT,
            ..contents.clone()
        })?;
        let mut file = super::private_file()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&temp)
            .with_context(|| format!("failed to create `{}`", temp.display()))?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, &self.path)
            .with_context(|| format!("failed to rename into `{}`", self.path.display()))?;
        if let Ok(dir) = std::fs::File::open(dir) {
            // Best effort: makes the rename durable on filesystems that need it.
            let _ = dir.sync_all();
        }
        Ok(())
    }

    /// Reads the cache; `None` when there is none.
    pub fn read(&self) -> anyhow::Result<Option<CacheContents>> {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => {
                return Err(error)
                    .with_context(|| format!("failed to read `{}`", self.path.display()));
            }
        };
        let contents: CacheContents = serde_json::from_slice(&bytes)
            .with_context(|| format!("`{}` is not a toolgate cache", self.path.display()))?;
        anyhow::ensure!(
            contents.format == FORMAT,
            "`{}` has cache format {}, expected {FORMAT}",
            self.path.display(),
            contents.format
        );
        Ok(Some(contents))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(&dir.path().join("nested"));
        assert!(cache.read().unwrap().is_none());
        let contents = CacheContents {
            written_by: "r1".into(),
            tokens: vec![
                CachedToken {
                    hash: "00".repeat(32),
                    id: 1,
                    role: "agent".into(),
                    tenant: "a".into(),
                    expires_at: None,
                },
                CachedToken {
                    hash: "01".repeat(32),
                    id: 2,
                    role: "admin".into(),
                    tenant: "a".into(),
                    expires_at: chrono::DateTime::from_timestamp(1_800_000_000, 0),
                },
            ],
            ..CacheContents::default()
        };
        cache.write(&contents).unwrap();
        let read = cache.read().unwrap().unwrap();
        assert_eq!(read.written_by, "r1");
        assert_eq!(read.tokens, contents.tokens);
    }

    #[test]
    fn the_cache_and_its_directory_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("data/cache");
        Cache::new(&nested)
            .write(&CacheContents::default())
            .unwrap();
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&nested), 0o700);
        assert_eq!(mode(&dir.path().join("data")), 0o700);
        assert_eq!(mode(&nested.join("policies.json")), 0o600);
    }
}
