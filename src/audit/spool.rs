//! The local append-only spool: numbered segment files (`000000000001.seg`, …) of checksummed
//! records, a `shipped` file saying how far the database has them, and the shared positions the
//! writer and the shipper agree on.
//!
//! Every batch the writer chains is appended here first (one `write`), before it is sent to the
//! database. Whether the append is also `fdatasync`'d depends on what makes the batch durable:
//! a database commit needs no sync; when the database cannot take the batch the spool is synced
//! and that is what the answer waits for. So after a SIGKILL the spool always holds this
//! replica's chain head, and rows that reached neither the database nor a synced spool were never
//! acknowledged.
//!
//! Record: `b"TGA1"`, payload length (u32 LE), the first 8 bytes of the row's chain hash, payload
//! (the row as JSON). A record checks when its payload parses and the row's recomputed hash
//! matches (the chain hash doubles as the checksum, so writing costs no second digest). At open,
//! the last segment is scanned and cut at the first record that does not
//! check (a torn write of an unacknowledged batch). This module must not log record contents.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use sha2::{Digest, Sha256};
use tokio::sync::Notify;

use super::record::Row;

const MAGIC: &[u8; 4] = b"TGA1";
const HEADER: usize = 16;
/// Largest record accepted when reading (a row is far smaller; this only bounds a corrupt length).
const MAX_RECORD: usize = 8 * 1024 * 1024;

/// A place in the spool: segment number and byte offset. Ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Position {
    /// The segment number.
    pub segment: u64,
    /// Bytes into the segment.
    pub offset: u64,
}

/// The end of a replica's chain: the last row's seq, hash and time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// Its seq.
    pub seq: i64,
    /// Its hash.
    pub hash: [u8; 32],
    /// Its time.
    pub time_us: i64,
}

impl Head {
    /// The head a row leaves behind.
    pub fn of(row: &Row) -> Self {
        Self {
            seq: row.seq,
            hash: row.hash,
            time_us: row.time_us,
        }
    }
}

/// What the writer and the shipper share, under one short-held lock (never on the request path).
#[derive(Debug, Default)]
pub struct SpoolState {
    /// Rows are being spooled (the database failed, or unshipped rows are waiting): new batches
    /// are synced to the spool and the shipper drains it in order.
    pub spooling: bool,
    /// Everything before this is in the database.
    pub shipped: Position,
    /// The end of the last append.
    pub end: Position,
    /// Size of every segment file.
    pub segments: BTreeMap<u64, u64>,
}

impl SpoolState {
    /// Bytes on disk.
    pub fn bytes(&self) -> u64 {
        self.segments.values().sum()
    }

    /// Rows are waiting for the database.
    pub fn unshipped(&self) -> bool {
        self.shipped < self.end
    }
}

/// Shared between the writer and the shipper.
#[derive(Debug, Default)]
pub struct SpoolShared {
    state: Mutex<SpoolState>,
    /// The `shipped` position last written to disk; held while writing it, so that the writer
    /// and the shipper never write the file at once nor an older position over a newer one.
    persisted: Mutex<Position>,
    /// Wakes the shipper after an append in spooling mode.
    pub wake: Notify,
}

impl SpoolShared {
    /// Locks the state (a poisoned lock is still used: the state is plain data).
    pub fn lock(&self) -> MutexGuard<'_, SpoolState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records on disk how far the database has the spool, unless a position as far or further
    /// is recorded already (no sync: a stale value only replays rows the database already has,
    /// which it ignores).
    pub fn persist_shipped(&self, dir: &Path) -> io::Result<()> {
        let mut persisted = self
            .persisted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let shipped = self.lock().shipped;
        if shipped <= *persisted {
            return Ok(());
        }
        write_shipped(dir, shipped)?;
        *persisted = shipped;
        Ok(())
    }
}

/// What was found at open.
#[derive(Debug, Default)]
pub struct Recovered {
    /// The last row in the spool: the replica that wrote it, and its chain head.
    pub head: Option<(String, Head)>,
    /// Bytes cut from the end of the last segment (a torn, unacknowledged write).
    pub truncated_bytes: u64,
}

/// Why the spool could not take a batch.
#[derive(Debug, thiserror::Error)]
pub enum SpoolError {
    /// The size cap would be exceeded.
    #[error("the audit spool is full ({bytes} of {max} bytes)")]
    Full {
        /// Bytes in use.
        bytes: u64,
        /// The cap.
        max: u64,
    },
    /// A file system error.
    #[error("audit spool i/o error: {0}")]
    Io(#[from] io::Error),
}

/// A segment file open for appending.
struct Current {
    number: u64,
    file: Arc<File>,
    len: u64,
    /// Its directory entry has been synced.
    dir_synced: bool,
    /// It holds bytes appended since its last sync.
    dirty: bool,
}

/// The writer's side of the spool.
pub struct Spool {
    dir: PathBuf,
    segment_bytes: u64,
    max_bytes: u64,
    current: Option<Current>,
    /// Full segments left with unsynced appends: a batch appended there whose insert is still
    /// in flight may yet be acknowledged by a sync, so [`Spool::sync`] covers them too until
    /// they are shipped. Rotation itself never waits for the disk.
    sealed: Vec<Current>,
    /// The next append starts a new segment: the last one was abandoned after an error.
    fresh: bool,
    shared: Arc<SpoolShared>,
    /// `dir/lock`, exclusively locked while the spool is open: two processes appending to one
    /// spool would each count its length and delete segments the other has not shipped.
    _lock: File,
    /// Tests make every sync fail.
    #[cfg(test)]
    fail_syncs: bool,
    /// The segments each sync covered, for tests.
    #[cfg(test)]
    synced: Vec<Vec<u64>>,
}

fn segment_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{number:012}.seg"))
}

fn shipped_path(dir: &Path) -> PathBuf {
    dir.join("shipped")
}

fn checksum(payload: &[u8]) -> [u8; 8] {
    let digest = Sha256::digest(payload);
    let mut out = [0u8; 8];
    out.copy_from_slice(&digest[..8]);
    out
}

/// Appends one row's record to `buf`.
pub fn encode(row: &Row, buf: &mut Vec<u8>) {
    let start = buf.len();
    buf.extend_from_slice(&[0u8; HEADER]);
    // Serialising a plain struct of strings and numbers cannot fail.
    let _ = serde_json::to_writer(&mut *buf, row);
    let payload_len = buf.len() - start - HEADER;
    let check = &row.hash[..8];
    let header = &mut buf[start..start + HEADER];
    header[..4].copy_from_slice(MAGIC);
    header[4..8].copy_from_slice(&u32::try_from(payload_len).unwrap_or(u32::MAX).to_le_bytes());
    header[8..].copy_from_slice(check);
}

/// Decodes the records in `bytes`; returns the rows and how many bytes were whole, valid records.
fn decode_all(bytes: &[u8]) -> (Vec<Row>, usize) {
    let mut rows = Vec::new();
    let mut at = 0;
    while let Some((row, len)) = decode_one(&bytes[at..]) {
        rows.push(row);
        at += len;
    }
    (rows, at)
}

fn decode_one(bytes: &[u8]) -> Option<(Row, usize)> {
    let header = bytes.get(..HEADER)?;
    if &header[..4] != MAGIC {
        return None;
    }
    let len = u32::from_le_bytes(header[4..8].try_into().ok()?) as usize;
    if len > MAX_RECORD {
        return None;
    }
    let payload = bytes.get(HEADER..HEADER + len)?;
    let row: Row = serde_json::from_slice(payload).ok()?;
    if row.hash[..8] != header[8..16] || row.compute_hash() != row.hash {
        return None;
    }
    Some((row, HEADER + len))
}

fn list_segments(dir: &Path) -> io::Result<BTreeMap<u64, u64>> {
    let mut segments = BTreeMap::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(number) = name
            .to_str()
            .and_then(|name| name.strip_suffix(".seg"))
            .and_then(|stem| stem.parse::<u64>().ok())
        else {
            continue;
        };
        segments.insert(number, entry.metadata()?.len());
    }
    Ok(segments)
}

fn read_shipped(dir: &Path) -> Option<Position> {
    let bytes = fs::read(shipped_path(dir)).ok()?;
    let (data, check) = (bytes.get(..16)?, bytes.get(16..24)?);
    if checksum(data) != check {
        return None;
    }
    Some(Position {
        segment: u64::from_le_bytes(data[..8].try_into().ok()?),
        offset: u64::from_le_bytes(data[8..16].try_into().ok()?),
    })
}

/// Records how far the database has the spool ([`SpoolShared::persist_shipped`] is the way in
/// while the spool is open).
fn write_shipped(dir: &Path, position: Position) -> io::Result<()> {
    let mut bytes = Vec::with_capacity(24);
    bytes.extend_from_slice(&position.segment.to_le_bytes());
    bytes.extend_from_slice(&position.offset.to_le_bytes());
    let check = checksum(&bytes);
    bytes.extend_from_slice(&check);
    let tmp = dir.join("shipped.tmp");
    fs::write(&tmp, &bytes)?;
    fs::rename(tmp, shipped_path(dir))
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

impl Spool {
    /// Opens (or creates) the spool in `dir`: cuts a torn tail, finds the chain head, and sets
    /// the shared positions (spooling when rows are waiting for the database).
    pub fn open(
        dir: &Path,
        segment_bytes: u64,
        max_bytes: u64,
    ) -> io::Result<(Self, Arc<SpoolShared>, Recovered)> {
        fs::create_dir_all(dir)?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("lock"))?;
        if let Err(error) = lock.try_lock() {
            return Err(match error {
                std::fs::TryLockError::WouldBlock => io::Error::new(
                    io::ErrorKind::ResourceBusy,
                    "another toolgate process has it open; give each replica its own \
                     --audit-spool-dir",
                ),
                std::fs::TryLockError::Error(error) => error,
            });
        }
        let mut segments = list_segments(dir)?;
        let mut recovered = Recovered::default();
        // Scan from the newest segment back to the first one holding a record.
        let numbers: Vec<u64> = segments.keys().rev().copied().collect();
        let mut end = Position::default();
        for (i, number) in numbers.iter().enumerate() {
            let path = segment_path(dir, *number);
            let bytes = fs::read(&path)?;
            let (rows, valid) = decode_all(&bytes);
            if i == 0 {
                end = Position {
                    segment: *number,
                    offset: valid as u64,
                };
                if valid < bytes.len() {
                    recovered.truncated_bytes = (bytes.len() - valid) as u64;
                    OpenOptions::new()
                        .write(true)
                        .open(&path)?
                        .set_len(valid as u64)?;
                    segments.insert(*number, valid as u64);
                }
            }
            if let Some(last) = rows.last() {
                recovered.head = Some((last.replica_id.clone(), Head::of(last)));
                break;
            }
        }
        let first = segments.keys().next().copied().unwrap_or(0);
        let shipped = match read_shipped(dir) {
            Some(position) if position.segment >= first => position.min(end),
            _ => Position {
                segment: first,
                offset: 0,
            },
        };
        let shared = Arc::new(SpoolShared::default());
        {
            let mut state = shared.lock();
            state.shipped = shipped;
            state.end = end;
            state.spooling = shipped < end;
            state.segments = segments;
        }
        let spool = Spool {
            dir: dir.to_owned(),
            segment_bytes: segment_bytes.max(4096),
            max_bytes,
            current: None,
            sealed: Vec::new(),
            fresh: false,
            shared: shared.clone(),
            _lock: lock,
            #[cfg(test)]
            fail_syncs: false,
            #[cfg(test)]
            synced: Vec::new(),
        };
        Ok((spool, shared, recovered))
    }

    /// The spool directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends `frames` (whole records) in one write; with `sync`, also `fdatasync`s them (and
    /// the directory, once per new segment). Refuses when the size cap would be exceeded.
    /// Returns the new end.
    ///
    /// A failed write, or a failed sync, leaves the spool as it was before the call: the end
    /// does not move and the segment is cut back, so rows that were refused are not shipped.
    /// The segment is then abandoned (after a failed `fdatasync` the state of its cached pages
    /// is unknown) and the next append starts a new one.
    pub async fn append(&mut self, frames: &[u8], sync: bool) -> Result<Position, SpoolError> {
        {
            let state = self.shared.lock();
            let bytes = state.bytes();
            if bytes + frames.len() as u64 > self.max_bytes {
                return Err(SpoolError::Full {
                    bytes,
                    max: self.max_bytes,
                });
            }
        }
        self.rotate_if_needed()?;
        let Some(current) = self.current.as_mut() else {
            return Err(SpoolError::Io(io::Error::other("no open segment")));
        };
        let before = current.len;
        let was_dirty = current.dirty;
        if let Err(error) = (&*current.file).write_all(frames) {
            self.abandon(before, was_dirty);
            return Err(error.into());
        }
        current.len += frames.len() as u64;
        current.dirty = true;
        let end = Position {
            segment: current.number,
            offset: current.len,
        };
        let number = current.number;
        // The end moves only once the rows are as durable as asked: the shipper reads up to it.
        if sync && let Err(error) = self.sync().await {
            self.abandon(before, was_dirty);
            return Err(error);
        }
        let mut state = self.shared.lock();
        state.segments.insert(number, end.offset);
        state.end = end;
        Ok(end)
    }

    /// Cuts the current segment back to `len` and makes the next append start a new segment.
    /// When earlier appends there were still unsynced (`was_dirty`), the segment is kept for
    /// [`Spool::sync`]: their batches' inserts may yet fail and be acknowledged by a sync.
    fn abandon(&mut self, len: u64, was_dirty: bool) {
        let Some(mut current) = self.current.take() else {
            return;
        };
        let kept = match current.file.set_len(len) {
            Ok(()) => len,
            // The disk refuses even the cut (both faults at once): the bytes stay, and whole
            // records among them would be replayed with the segment. Nothing more can be done
            // with a disk in that state; the error is reported by the caller.
            Err(_) => current.file.metadata().map_or(current.len, |m| m.len()),
        };
        self.shared.lock().segments.insert(current.number, kept);
        self.fresh = true;
        if was_dirty {
            current.len = kept;
            current.dirty = true;
            self.sealed.push(current);
        }
    }

    /// `fdatasync`s every segment with unsynced appends not yet shipped (the one appended to,
    /// and full ones left behind by rotation), and the directory once per new segment.
    pub async fn sync(&mut self) -> Result<(), SpoolError> {
        #[cfg(test)]
        if self.fail_syncs {
            return Err(SpoolError::Io(io::Error::other("injected sync failure")));
        }
        self.forget_shipped();
        let mut segments = self.sealed.iter().chain(&self.current);
        let dirty: Vec<(u64, Arc<File>)> = segments
            .clone()
            .filter(|segment| segment.dirty)
            .map(|segment| (segment.number, segment.file.clone()))
            .collect();
        let dir = segments
            .any(|segment| !segment.dir_synced)
            .then(|| self.dir.clone());
        #[cfg(test)]
        self.synced
            .push(dirty.iter().map(|(number, _)| *number).collect());
        if dirty.is_empty() && dir.is_none() {
            return Ok(());
        }
        tokio::task::spawn_blocking(move || {
            for (_, file) in dirty {
                file.sync_data()?;
            }
            if let Some(dir) = dir {
                sync_dir(&dir)?;
            }
            Ok::<(), io::Error>(())
        })
        .await
        .map_err(io::Error::other)??;
        self.sealed.clear();
        if let Some(current) = self.current.as_mut() {
            current.dir_synced = true;
            current.dirty = false;
        }
        Ok(())
    }

    /// Drops the full segments whose rows are all in the database: they need no sync.
    fn forget_shipped(&mut self) {
        let shipped = self.shared.lock().shipped.segment;
        self.sealed.retain(|segment| segment.number >= shipped);
    }

    /// Opens the segment to append to: the current one while it has room; else a new one. A full
    /// segment with unsynced appends is kept for [`Spool::sync`] until it is shipped: syncing it
    /// here (16 MiB at a time) stalled every evaluation waiting on the writer for tens of
    /// milliseconds.
    fn rotate_if_needed(&mut self) -> io::Result<()> {
        if let Some(current) = &self.current
            && current.len < self.segment_bytes
        {
            return Ok(());
        }
        if let Some(full) = self.current.take()
            && (full.dirty || !full.dir_synced)
        {
            self.forget_shipped();
            self.sealed.push(full);
        }
        let number = {
            let state = self.shared.lock();
            match state.segments.last_key_value() {
                // At start, keep appending to the last segment while it has room.
                Some((number, len)) if !self.fresh && *len < self.segment_bytes => *number,
                Some((number, _)) => number + 1,
                None => 1,
            }
        };
        let path = segment_path(&self.dir, number);
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        let len = file.metadata()?.len();
        self.current = Some(Current {
            number,
            file: Arc::new(file),
            len,
            dir_synced: false,
            dirty: false,
        });
        self.fresh = false;
        self.shared.lock().segments.insert(number, len);
        Ok(())
    }

    /// The segment being appended to.
    pub fn current_segment(&self) -> Option<u64> {
        self.current.as_ref().map(|current| current.number)
    }
}

/// Deletes every segment wholly before `shipped` (never the one being appended to). Returns the
/// bytes left on disk.
pub fn delete_shipped(dir: &Path, shared: &SpoolShared, current: Option<u64>) -> u64 {
    let mut state = shared.lock();
    let keep_from = state
        .shipped
        .segment
        .min(current.unwrap_or(u64::MAX))
        .min(state.end.segment);
    let old: Vec<u64> = state.segments.range(..keep_from).map(|(n, _)| *n).collect();
    for number in old {
        match fs::remove_file(segment_path(dir, number)) {
            Ok(()) => {
                state.segments.remove(&number);
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                state.segments.remove(&number);
            }
            Err(error) => {
                tracing::warn!(error = %error, "cannot delete a shipped audit spool segment");
            }
        }
    }
    state.bytes()
}

/// Reads up to `max_rows` rows from `from`, not past `to`. Returns the rows and the position
/// after them. A record that does not check in the middle of a segment ends that segment (it is
/// reported in the error count).
pub fn read_range(
    dir: &Path,
    from: Position,
    to: Position,
    max_rows: usize,
) -> io::Result<(Vec<Row>, Position, usize)> {
    let mut rows = Vec::new();
    let mut at = from;
    let mut corrupt = 0;
    while rows.len() < max_rows && at < to {
        let path = segment_path(dir, at.segment);
        let mut file = match File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                at = next_segment(dir, at.segment, to)?;
                continue;
            }
            Err(error) => return Err(error),
        };
        let len = file.metadata()?.len();
        let stop = if at.segment == to.segment {
            to.offset.min(len)
        } else {
            len
        };
        if at.offset >= stop {
            if at.segment >= to.segment {
                break;
            }
            at = next_segment(dir, at.segment, to)?;
            continue;
        }
        file.seek(SeekFrom::Start(at.offset))?;
        let want = usize::try_from(stop - at.offset)
            .unwrap_or(usize::MAX)
            .min(4 << 20);
        let mut bytes = vec![0u8; want];
        file.read_exact(&mut bytes)?;
        let mut used = 0;
        while rows.len() < max_rows {
            match decode_one(&bytes[used..]) {
                Some((row, n)) => {
                    rows.push(row);
                    used += n;
                }
                None => break,
            }
        }
        if used == 0 {
            // A record that does not check (the window always holds a whole record): skip the
            // rest of this segment.
            corrupt += 1;
            at = if at.segment >= to.segment {
                to
            } else {
                next_segment(dir, at.segment, to)?
            };
            continue;
        }
        at.offset += used as u64;
    }
    Ok((rows, at, corrupt))
}

fn next_segment(dir: &Path, after: u64, to: Position) -> io::Result<Position> {
    let next = list_segments(dir)?
        .range(after + 1..=to.segment)
        .next()
        .map(|(n, _)| *n)
        .unwrap_or(to.segment);
    Ok(if next == to.segment && next <= after {
        to
    } else {
        Position {
            segment: next,
            offset: 0,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seq: i64) -> Row {
        let mut row = Row {
            id: format!("id-{seq}"),
            time_us: seq,
            replica_id: "r".into(),
            seq,
            prev_hash: [0; 32],
            hash: [seq as u8; 32],
            tenant: None,
            agent: "claude-code".into(),
            session_id: None,
            tool_use_id: None,
            prompt_id: None,
            event: "PreToolUse".into(),
            tool: None,
            decision: "none".into(),
            mode: "enforced".into(),
            shadow_decision: None,
            winner: None,
            rules: vec![],
            shadow_rules: vec![],
            reason: None,
            bundles: vec![],
            input: "{}".into(),
            cwd: None,
            permission_mode: None,
            latency_us: 1,
            repeat: false,
            failure: false,
        };
        row.hash = row.compute_hash();
        row
    }

    fn frames(seqs: std::ops::RangeInclusive<i64>) -> Vec<u8> {
        let mut buf = Vec::new();
        for seq in seqs {
            encode(&row(seq), &mut buf);
        }
        buf
    }

    #[tokio::test]
    async fn appends_rotate_read_back_and_survive_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, shared, recovered) = Spool::open(dir.path(), 4096, 1 << 20).unwrap();
        assert!(recovered.head.is_none());
        for batch in 0..20 {
            spool
                .append(&frames(batch * 5 + 1..=batch * 5 + 5), batch % 2 == 0)
                .await
                .unwrap();
        }
        let end = shared.lock().end;
        assert!(end.segment > 1, "segments rotate");
        let (rows, at, corrupt) = read_range(dir.path(), Position::default(), end, 1000).unwrap();
        assert_eq!(corrupt, 0);
        assert_eq!(at, end);
        assert_eq!(
            rows.iter().map(|r| r.seq).collect::<Vec<_>>(),
            (1..=100).collect::<Vec<_>>()
        );
        // A torn write at the end.
        let last = segment_path(dir.path(), end.segment);
        let mut file = OpenOptions::new().append(true).open(&last).unwrap();
        file.write_all(&frames(101..=101)[..30]).unwrap();
        drop(spool);
        write_shipped(
            dir.path(),
            Position {
                segment: 1,
                offset: 0,
            },
        )
        .unwrap();
        let (_spool, shared, recovered) = Spool::open(dir.path(), 4096, 1 << 20).unwrap();
        assert_eq!(recovered.head.map(|(_, h)| h.seq), Some(100));
        assert_eq!(recovered.truncated_bytes, 30);
        let state = shared.lock();
        assert!(state.spooling, "unshipped rows wait for the database");
        assert_eq!(state.end, end);
    }

    #[tokio::test]
    async fn the_cap_refuses_and_shipped_segments_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, shared, _) = Spool::open(dir.path(), 4096, 8192).unwrap();
        let mut refused = false;
        for batch in 0..100 {
            match spool
                .append(&frames(batch * 5 + 1..=batch * 5 + 5), false)
                .await
            {
                Ok(_) => {}
                Err(SpoolError::Full { .. }) => {
                    refused = true;
                    break;
                }
                Err(error) => panic!("{error}"),
            }
        }
        assert!(refused);
        let end = shared.lock().end;
        shared.lock().shipped = end;
        let left = delete_shipped(dir.path(), &shared, spool.current_segment());
        assert!(left <= 4096 + 2048, "{left}");
        spool.append(&frames(1..=1), false).await.unwrap();
    }

    #[tokio::test]
    async fn a_failed_sync_keeps_the_refused_rows_out_and_starts_a_new_segment() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, shared, _) = Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
        let first = spool.append(&frames(1..=3), false).await.unwrap();
        spool.fail_syncs = true;
        let refused = spool.append(&frames(4..=6), true).await;
        assert!(matches!(refused, Err(SpoolError::Io(_))), "{refused:?}");
        assert_eq!(
            shared.lock().end,
            first,
            "the end does not move past refused rows"
        );
        assert_eq!(
            fs::metadata(segment_path(dir.path(), first.segment))
                .unwrap()
                .len(),
            first.offset,
            "the refused rows are cut from the segment"
        );
        spool.fail_syncs = false;
        let next = spool.append(&frames(4..=5), true).await.unwrap();
        assert_eq!(
            next.segment,
            first.segment + 1,
            "a new segment after a failed sync"
        );
        let (rows, _, corrupt) = read_range(dir.path(), Position::default(), next, 100).unwrap();
        assert_eq!(corrupt, 0);
        assert_eq!(
            rows.iter().map(|r| r.seq).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
    }

    #[tokio::test]
    async fn rotation_never_waits_for_the_disk_and_a_sync_covers_what_it_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, shared, _) = Spool::open(dir.path(), 4096, 1 << 20).unwrap();
        let mut seq = 0;
        // Unsynced batches of 5 rows until `segment` is the one appended to.
        let mut append_until = async |spool: &mut Spool, segment: u64| loop {
            let end = spool
                .append(&frames(seq + 1..=seq + 5), false)
                .await
                .unwrap();
            seq += 5;
            if end.segment >= segment {
                break;
            }
        };
        append_until(&mut spool, 3).await;
        assert!(
            spool.synced.is_empty(),
            "rotation synced: {:?}",
            spool.synced
        );
        // An insert of a batch in segment 1 fails: its sync must reach segment 1.
        spool.sync().await.unwrap();
        assert_eq!(spool.synced, [vec![1, 2, 3]]);
        spool.sync().await.unwrap();
        assert_eq!(spool.synced[1], Vec::<u64>::new(), "nothing left to sync");

        // Segments wholly in the database need no sync.
        append_until(&mut spool, 5).await;
        shared.lock().shipped = Position {
            segment: 4,
            offset: 0,
        };
        spool.sync().await.unwrap();
        assert_eq!(spool.synced[2], [4, 5]);
    }

    #[tokio::test]
    async fn a_failed_write_leaves_earlier_unsynced_rows_to_the_next_sync() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, _, _) = Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
        let first = spool.append(&frames(1..=3), false).await.unwrap();
        // What `append` does when the write of the next batch fails.
        spool.abandon(first.offset, true);
        spool.sync().await.unwrap();
        assert_eq!(spool.synced, [vec![first.segment]]);
    }

    #[tokio::test]
    async fn a_spool_is_open_in_one_place_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let (spool, _, _) = Spool::open(dir.path(), 4096, 1 << 20).unwrap();
        let second = Spool::open(dir.path(), 4096, 1 << 20).map(|_| ());
        let error = second.expect_err("a second open of a spool in use");
        assert_eq!(error.kind(), io::ErrorKind::ResourceBusy);
        assert!(error.to_string().contains("--audit-spool-dir"), "{error}");
        drop(spool);
        Spool::open(dir.path(), 4096, 1 << 20).expect("open once the first is closed");
    }

    #[test]
    fn the_recorded_shipped_position_never_goes_back() {
        let dir = tempfile::tempdir().unwrap();
        let shared = SpoolShared::default();
        let at = |segment, offset| Position { segment, offset };
        shared.lock().shipped = at(2, 100);
        shared.persist_shipped(dir.path()).unwrap();
        assert_eq!(read_shipped(dir.path()), Some(at(2, 100)));
        // A caller holding an older view (the writer, while the shipper moved on) writes nothing.
        shared.lock().shipped = at(1, 500);
        shared.persist_shipped(dir.path()).unwrap();
        assert_eq!(read_shipped(dir.path()), Some(at(2, 100)));
        shared.lock().shipped = at(3, 0);
        shared.persist_shipped(dir.path()).unwrap();
        assert_eq!(read_shipped(dir.path()), Some(at(3, 0)));
    }
}
