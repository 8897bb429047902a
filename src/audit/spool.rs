//! The local append-only spool: numbered segment files (`000000000001.seg`, …) of checksummed
//! records, a `shipped` file saying how far the database has them, a `head` file with the
//! writer's chain head, and the shared positions the writer and the shipper agree on.
//!
//! A batch reaches the spool only when the database did not take it (its insert failed or timed
//! out), or while earlier spooled rows still wait for the database (order is kept). Every append
//! is `fdatasync`'d before the batch is acknowledged. While the database takes the inserts, the
//! writer touches only the `head` file: one small write per batch before its insert (the seq it
//! sends) and one after its commit (the new head), so that a restart knows where the chain goes
//! on, and whether a batch was in flight when the process died.
//!
//! Record: `b"TGA1"`, payload length (u32 LE), the first 8 bytes of the row's chain hash, payload
//! (the row as JSON). A record checks when its payload parses and the row's recomputed hash
//! matches (the chain hash doubles as the checksum, so writing costs no second digest). A record
//! that does not check loses only itself: readers go on at the next record that does
//! ([`read_range`] returns where the damage is, for the shipper to report and copy aside: at
//! most [`MAX_QUARANTINED`] copies, counted in the spool's size, see [`quarantine`]). At
//! open, the newest segment is cut only after its last record that checks, and only when what
//! follows is a torn write (the start of a record of an unacknowledged batch). This module must
//! not log record contents.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use sha2::{Digest, Sha256};
use tokio::sync::Notify;

use super::record::{GENESIS, Row};
use crate::store::{create_private_dir, private_file};

const MAGIC: &[u8; 4] = b"TGA1";
const HEAD_MAGIC: &[u8; 4] = b"TGH1";
const HEADER: usize = 16;
/// Largest record accepted when reading (a row is far smaller; this only bounds a corrupt length).
const MAX_RECORD: usize = 8 * 1024 * 1024;
/// Most copies of damaged segments kept ([`quarantine`]); the oldest goes first.
pub const MAX_QUARANTINED: usize = 4;

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
    /// Size of every copy of a damaged segment (`NNN.seg.corrupt`), by segment number.
    pub quarantined: BTreeMap<u64, u64>,
}

impl SpoolState {
    /// Bytes on disk: the segments and the copies of damaged ones.
    pub fn bytes(&self) -> u64 {
        self.segments.values().sum::<u64>() + self.quarantined.values().sum::<u64>()
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

    /// Reads again which copies of damaged segments are on disk (an operator removes them), when
    /// there are any. Returns the spool's bytes and the number of copies.
    pub fn refresh_quarantined(&self, dir: &Path) -> io::Result<(u64, usize)> {
        if !self.lock().quarantined.is_empty() {
            let copies = list_quarantined(dir, false)?;
            self.lock().quarantined = copies;
        }
        let state = self.lock();
        Ok((state.bytes(), state.quarantined.len()))
    }
}

/// What was found at open.
#[derive(Debug, Default)]
pub struct Recovered {
    /// The last row in the spool: the replica that wrote it, and its chain head.
    pub head: Option<(String, Head)>,
    /// What the `head` file says, when it is whole.
    pub recorded: Option<HeadRecord>,
    /// Bytes cut from the end of the last segment (a torn, unacknowledged write).
    pub truncated_bytes: u64,
    /// Copies of damaged segments removed because more than [`MAX_QUARANTINED`] were there.
    pub dropped_copies: Vec<PathBuf>,
}

/// The `head` file's content: the writer's chain head as far as it knows it reached the
/// database or the spool (`settled`), and the last seq it sent to the database (`claimed`).
/// `claimed` above `settled` means an insert was in flight: its rows may be committed or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadRecord {
    /// The replica that wrote it.
    pub replica_id: String,
    /// The last row known durable.
    pub settled: Head,
    /// The last seq sent to the database.
    pub claimed: i64,
}

impl HeadRecord {
    fn encode(&self, buf: &mut Vec<u8>) {
        buf.clear();
        buf.extend_from_slice(HEAD_MAGIC);
        buf.extend_from_slice(&self.claimed.to_le_bytes());
        buf.extend_from_slice(&self.settled.seq.to_le_bytes());
        buf.extend_from_slice(&self.settled.time_us.to_le_bytes());
        buf.extend_from_slice(&self.settled.hash);
        let replica = self.replica_id.as_bytes();
        buf.extend_from_slice(
            &u32::try_from(replica.len())
                .unwrap_or(u32::MAX)
                .to_le_bytes(),
        );
        buf.extend_from_slice(replica);
        let check = checksum(buf);
        buf.extend_from_slice(&check);
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let i64_at = |at: usize| Some(i64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
        if bytes.get(..4)? != HEAD_MAGIC {
            return None;
        }
        let len = u32::from_le_bytes(bytes.get(60..64)?.try_into().ok()?) as usize;
        let end = 64usize.checked_add(len)?;
        let check = bytes.get(end..end.checked_add(8)?)?;
        if checksum(&bytes[..end]) != check {
            return None;
        }
        Some(Self {
            replica_id: String::from_utf8(bytes[64..end].to_vec()).ok()?,
            settled: Head {
                seq: i64_at(12)?,
                time_us: i64_at(20)?,
                hash: bytes[28..60].try_into().ok()?,
            },
            claimed: i64_at(4)?,
        })
    }
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
}

/// The writer's side of the spool.
pub struct Spool {
    dir: PathBuf,
    segment_bytes: u64,
    max_bytes: u64,
    current: Option<Current>,
    /// `dir/head`, rewritten in place ([`Spool::record_head`]).
    head: File,
    /// The `head` file's bytes, kept to write them without an allocation.
    head_buf: Vec<u8>,
    /// The next append starts a new segment: the last one was abandoned after an error.
    fresh: bool,
    shared: Arc<SpoolShared>,
    /// `dir/lock`, exclusively locked while the spool is open: two processes appending to one
    /// spool would each count its length and delete segments the other has not shipped.
    _lock: File,
    /// Tests make every sync fail.
    #[cfg(test)]
    pub(super) fail_syncs: bool,
    /// Tests make every write of the `head` file fail.
    #[cfg(test)]
    pub(super) fail_head: bool,
}

fn segment_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{number:012}.seg"))
}

fn shipped_path(dir: &Path) -> PathBuf {
    dir.join("shipped")
}

fn head_path(dir: &Path) -> PathBuf {
    dir.join("head")
}

/// What a replica's spool directory says of the end of its chain, for `toolgate audit verify
/// --spool-dir`: the `head` file's last row known durable and, when rows of that chain still
/// wait in the spool for the database, the first of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpooledHead {
    /// The replica whose head it is.
    pub replica_id: String,
    /// Its last row known durable, committed or spooled.
    pub settled: Head,
    /// The first row of that chain not yet shipped, as far as the `shipped` file tells (it may
    /// lag, never lead): its seq and `prev_hash`, and how many such rows wait.
    pub waiting: Option<(i64, [u8; 32], usize)>,
}

impl SpooledHead {
    /// The seq and hash the database's chain must reach: the row before the first that waits in
    /// the spool, or else the settled head. `None` when no row before those is known: the chain
    /// (re)starts there (a zero hash: a new chain, or one restarted without its head).
    pub fn in_database(&self) -> Option<(i64, [u8; 32])> {
        match self.waiting {
            Some((seq, prev_hash, _)) => (prev_hash != GENESIS).then_some((seq - 1, prev_hash)),
            None => (self.settled.hash != GENESIS).then_some((self.settled.seq, self.settled.hash)),
        }
    }
}

/// Reads a spool directory's chain head without opening the spool: a running replica may hold
/// it, and appends and ships meanwhile (a row shipped meanwhile only looks unshipped, which asks
/// less of the database). `None` when there is no whole `head` file.
pub fn spooled_head(dir: &Path) -> io::Result<Option<SpooledHead>> {
    // A directory that cannot be read is an error, not a spool without a head.
    let segments = list_segments(dir)?;
    let Some(record) = read_head(dir) else {
        return Ok(None);
    };
    let first = segments.keys().next().copied().unwrap_or(0);
    let end = segments
        .last_key_value()
        .map(|(segment, len)| Position {
            segment: *segment,
            offset: *len,
        })
        .unwrap_or_default();
    let mut at = match read_shipped(dir) {
        Some(position) if position.segment >= first => position.min(end),
        _ => Position {
            segment: first,
            offset: 0,
        },
    };
    let mut waiting: Option<(i64, [u8; 32], usize)> = None;
    while at < end {
        let (rows, next, _) = read_range(dir, at, end, 1000)?;
        for row in rows
            .iter()
            .filter(|row| row.replica_id == record.replica_id)
        {
            match &mut waiting {
                Some((_, _, count)) => *count += 1,
                None => waiting = Some((row.seq, row.prev_hash, 1)),
            }
        }
        if next <= at {
            break;
        }
        at = next;
    }
    Ok(Some(SpooledHead {
        replica_id: record.replica_id,
        settled: record.settled,
        waiting,
    }))
}

/// What the `head` file in `dir` says, when it is there and whole.
pub fn read_head(dir: &Path) -> Option<HeadRecord> {
    HeadRecord::decode(&fs::read(head_path(dir)).ok()?)
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

/// A stretch of a segment that holds no record that checks: a record damaged on disk, or bytes
/// that are no record at all. Found by the reader, which goes on at the next record that checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Damage {
    /// Where it starts.
    pub at: Position,
    /// Its length in bytes.
    pub len: u64,
}

/// One step of reading records from the start of `bytes`.
enum Step {
    /// A record that checks, and its length.
    Record(Box<Row>, usize),
    /// This many bytes hold no record that checks; a record that does follows them.
    Damaged(usize),
    /// No record that checks from here to the end of `bytes` (nothing at all, a torn write, or
    /// damage at the end).
    End,
}

fn step(bytes: &[u8]) -> Step {
    if bytes.is_empty() {
        return Step::End;
    }
    if let Some((row, len)) = decode_one(bytes) {
        return Step::Record(Box::new(row), len);
    }
    match resync(bytes) {
        Some(skip) => Step::Damaged(skip),
        None => Step::End,
    }
}

/// The offset, after the first byte, of the first record in `bytes` that checks. A record is
/// found only where it was written: its header (magic, then a length under 8 MiB, whose last
/// byte is therefore 0) cannot appear inside another record's payload, which is JSON and holds
/// no byte 0, nor straddle a payload's end and the next header; and it must then be followed by
/// a row whose recomputed chain hash matches the 8 bytes of the header.
fn resync(bytes: &[u8]) -> Option<usize> {
    (1..bytes.len())
        .filter(|&at| bytes[at..].starts_with(MAGIC))
        .find(|&at| decode_one(&bytes[at..]).is_some())
}

/// What [`scan`] found in a whole segment.
struct Scan {
    /// Every record that checks, in order, damage or not between them.
    rows: Vec<Row>,
    /// The end of the last record that checks.
    end: usize,
}

/// Reads every record of a segment that checks, going on past damage.
fn scan(bytes: &[u8]) -> Scan {
    let mut rows = Vec::new();
    let (mut at, mut end) = (0, 0);
    loop {
        match step(&bytes[at..]) {
            Step::Record(row, len) => {
                rows.push(*row);
                at += len;
                end = at;
            }
            Step::Damaged(len) => at += len,
            Step::End => return Scan { rows, end },
        }
    }
}

/// Whether `tail`, the bytes after the last record that checks in the newest segment, is what
/// a write cut short by a crash leaves: the start of a record (part of a header, or a header
/// whose length runs past the end) and nothing else. Anything else there was written whole and
/// damaged since (a header that is no header, a record whose payload or checksum does not
/// check, or one whose length alone was damaged: its payload checks without it).
fn torn(tail: &[u8]) -> bool {
    if tail.len() < HEADER {
        return MAGIC.starts_with(&tail[..tail.len().min(MAGIC.len())]);
    }
    let len = u32::from_le_bytes([tail[4], tail[5], tail[6], tail[7]]) as usize;
    let whole_payload = || {
        serde_json::from_slice::<Row>(&tail[HEADER..])
            .is_ok_and(|row| row.hash[..8] == tail[8..16] && row.compute_hash() == row.hash)
    };
    &tail[..4] == MAGIC && len <= MAX_RECORD && HEADER + len > tail.len() && !whole_payload()
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

/// The path of the copy [`quarantine`] keeps of segment `number`.
pub fn quarantine_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{number:012}.seg.corrupt"))
}

/// What [`quarantine`] did.
#[derive(Debug)]
pub struct Quarantined {
    /// The copy.
    pub path: PathBuf,
    /// Older copies removed to keep [`MAX_QUARANTINED`], oldest first.
    pub dropped: Vec<PathBuf>,
}

/// Copies segment `number` to `NNN.seg.corrupt` beside it (replacing an older copy, which the
/// segment still holds whole: damage is never cut out of it), so that the damaged bytes outlive
/// the segment, which is deleted once shipped. The copy counts in the spool's size, toward
/// `max_bytes`: one that would take the spool past it is not made (the rows the spool must take
/// matter more than the evidence). Of the other copies, the oldest (lowest segment number) are
/// removed until [`MAX_QUARANTINED`] are left, this one included. An operator inspects and
/// removes copies; [`SpoolShared::refresh_quarantined`] notices.
pub fn quarantine(
    dir: &Path,
    shared: &SpoolShared,
    number: u64,
    max_bytes: u64,
) -> io::Result<Quarantined> {
    let size = fs::metadata(segment_path(dir, number))?.len();
    // Reserved under the lock, so that appends meanwhile count it.
    let (previous, dropped) = {
        let mut state = shared.lock();
        let others: Vec<u64> = state
            .quarantined
            .keys()
            .filter(|other| **other != number)
            .copied()
            .collect();
        let excess = (others.len() + 1).saturating_sub(MAX_QUARANTINED);
        let dropped = others[..excess].to_vec();
        let freed: u64 = dropped
            .iter()
            .chain([&number])
            .filter_map(|n| state.quarantined.get(n))
            .sum();
        let after = state.bytes() - freed + size;
        if after > max_bytes {
            return Err(io::Error::other(format!(
                "a {size}-byte copy would take the spool past --audit-spool-max-bytes \
                 ({after} of {max_bytes} bytes)"
            )));
        }
        (state.quarantined.insert(number, size), dropped)
    };
    let path = quarantine_path(dir, number);
    if let Err(error) = copy_segment(dir, number, &path) {
        let mut state = shared.lock();
        match previous {
            Some(bytes) => state.quarantined.insert(number, bytes),
            None => state.quarantined.remove(&number),
        };
        return Err(error);
    }
    let mut removed = Vec::with_capacity(dropped.len());
    for old in dropped {
        let old_path = quarantine_path(dir, old);
        match fs::remove_file(&old_path) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => {
                tracing::warn!(copy = %old_path.display(), error = %error, "cannot remove an old copy of a damaged audit spool segment");
            }
            _ => {
                shared.lock().quarantined.remove(&old);
                removed.push(old_path);
            }
        }
    }
    Ok(Quarantined {
        path,
        dropped: removed,
    })
}

/// Copies segment `number` to `path`, synced, through a temporary file.
fn copy_segment(dir: &Path, number: u64, path: &Path) -> io::Result<()> {
    let tmp = quarantine_tmp_path(dir, number);
    let mut copy = private_file()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&tmp)?;
    io::copy(&mut File::open(segment_path(dir, number))?, &mut copy)?;
    copy.sync_all()?;
    fs::rename(&tmp, path)?;
    sync_dir(dir)
}

fn quarantine_tmp_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{number:012}.seg.corrupt.tmp"))
}

/// The copies of damaged segments in `dir` and their sizes. At open (`at_open`), a temporary
/// copy a crash left behind is removed; later only the shipper makes copies, and it lists them
/// between copies.
fn list_quarantined(dir: &Path, at_open: bool) -> io::Result<BTreeMap<u64, u64>> {
    let mut copies = BTreeMap::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if at_open
            && let Some(stem) = name.strip_suffix(".seg.corrupt.tmp")
            && stem.parse::<u64>().is_ok()
        {
            fs::remove_file(entry.path())?;
            continue;
        }
        let Some(number) = name
            .strip_suffix(".seg.corrupt")
            .and_then(|stem| stem.parse::<u64>().ok())
        else {
            continue;
        };
        // A copy removed meanwhile is simply not there.
        if let Ok(metadata) = entry.metadata() {
            copies.insert(number, metadata.len());
        }
    }
    Ok(copies)
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
    private_file()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&tmp)?
        .write_all(&bytes)?;
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
        create_private_dir(dir)?;
        let lock = private_file()
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
            let Scan { rows, end: valid } = scan(&bytes);
            // A torn write is cut (its batch was never acknowledged). Damage at the end stays,
            // like damage anywhere, for the reader to report and copy aside: its record may
            // have been acknowledged.
            let kept = if torn(&bytes[valid..]) {
                valid
            } else {
                bytes.len()
            };
            if i == 0 {
                end = Position {
                    segment: *number,
                    offset: kept as u64,
                };
                if kept < bytes.len() {
                    recovered.truncated_bytes = (bytes.len() - kept) as u64;
                    OpenOptions::new()
                        .write(true)
                        .open(&path)?
                        .set_len(kept as u64)?;
                    segments.insert(*number, kept as u64);
                }
            }
            if let Some(last) = rows.last() {
                recovered.head = Some((last.replica_id.clone(), Head::of(last)));
                // Newer segments are empty (made by a rotation whose first append failed, or
                // was cut as torn): the rows end here, and this segment is not shipped past.
                if end.offset == 0 {
                    end = Position {
                        segment: *number,
                        offset: kept as u64,
                    };
                }
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
        recovered.recorded = read_head(dir);
        let mut quarantined = list_quarantined(dir, true)?;
        // More copies than are kept (left by an older release, which kept every one): the
        // oldest go, as they would have when the newest was made.
        while quarantined.len() > MAX_QUARANTINED
            && let Some((number, _)) = quarantined.pop_first()
        {
            let path = quarantine_path(dir, number);
            match fs::remove_file(&path) {
                Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
                _ => recovered.dropped_copies.push(path),
            }
        }
        let head = private_file()
            .create(true)
            .truncate(false)
            .write(true)
            .open(head_path(dir))?;
        let shared = Arc::new(SpoolShared::default());
        {
            let mut state = shared.lock();
            state.shipped = shipped;
            state.end = end;
            state.spooling = shipped < end;
            state.segments = segments;
            state.quarantined = quarantined;
        }
        let spool = Spool {
            dir: dir.to_owned(),
            segment_bytes: segment_bytes.max(4096),
            max_bytes,
            current: None,
            head,
            head_buf: Vec::with_capacity(128),
            fresh: false,
            shared: shared.clone(),
            _lock: lock,
            #[cfg(test)]
            fail_syncs: false,
            #[cfg(test)]
            fail_head: false,
        };
        Ok((spool, shared, recovered))
    }

    /// The spool directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Rewrites the `head` file in place (one `pwrite`, no sync). A record from an earlier
    /// process with a longer replica id leaves bytes behind it; the record's own length and
    /// checksum end it.
    pub fn record_head(&mut self, record: &HeadRecord) -> io::Result<()> {
        #[cfg(test)]
        if self.fail_head {
            return Err(io::Error::other("injected head failure"));
        }
        record.encode(&mut self.head_buf);
        self.head.write_all_at(&self.head_buf, 0)
    }

    /// Appends `frames` (whole records) in one write and `fdatasync`s them (and the directory,
    /// once per new segment). Refuses when the size cap would be exceeded. Returns the new end.
    ///
    /// A failed write, or a failed sync, leaves the spool as it was before the call: the end
    /// does not move and the segment is cut back, so rows that were refused are not shipped.
    /// The segment is then abandoned (after a failed `fdatasync` the state of its cached pages
    /// is unknown) and the next append starts a new one.
    pub async fn append(&mut self, frames: &[u8]) -> Result<Position, SpoolError> {
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
        if let Err(error) = (&*current.file).write_all(frames) {
            self.abandon(before);
            return Err(error.into());
        }
        current.len += frames.len() as u64;
        let end = Position {
            segment: current.number,
            offset: current.len,
        };
        // The end moves only once the rows are synced: the shipper reads up to it.
        if let Err(error) = self.sync().await {
            self.abandon(before);
            return Err(error);
        }
        let mut state = self.shared.lock();
        state.segments.insert(end.segment, end.offset);
        state.end = end;
        Ok(end)
    }

    /// Cuts the current segment back to `len` and makes the next append start a new segment.
    fn abandon(&mut self, len: u64) {
        let Some(current) = self.current.take() else {
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
    }

    /// `fdatasync`s the segment appended to, and the directory once per new segment.
    async fn sync(&mut self) -> Result<(), SpoolError> {
        #[cfg(test)]
        if self.fail_syncs {
            return Err(SpoolError::Io(io::Error::other("injected sync failure")));
        }
        let Some(current) = self.current.as_mut() else {
            return Ok(());
        };
        let file = current.file.clone();
        let dir = (!current.dir_synced).then(|| self.dir.clone());
        tokio::task::spawn_blocking(move || {
            file.sync_data()?;
            if let Some(dir) = dir {
                sync_dir(&dir)?;
            }
            Ok::<(), io::Error>(())
        })
        .await
        .map_err(io::Error::other)??;
        current.dir_synced = true;
        Ok(())
    }

    /// Opens the segment to append to: the current one while it has room; else a new one.
    fn rotate_if_needed(&mut self) -> io::Result<()> {
        if let Some(current) = &self.current
            && current.len < self.segment_bytes
        {
            return Ok(());
        }
        self.current = None;
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
        let file = private_file().create(true).append(true).open(&path)?;
        let len = file.metadata()?.len();
        self.current = Some(Current {
            number,
            file: Arc::new(file),
            len,
            dir_synced: false,
        });
        self.fresh = false;
        self.shared.lock().segments.insert(number, len);
        Ok(())
    }
}

/// Deletes every segment wholly before `shipped`. Never the one being appended to: that is
/// the end's segment or a later one, and `shipped` is never past the end. Returns the bytes left
/// on disk.
pub fn delete_shipped(dir: &Path, shared: &SpoolShared) -> u64 {
    let mut state = shared.lock();
    let keep_from = state.shipped.segment.min(state.end.segment);
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

/// Reads up to `max_rows` rows from `from`, not past `to`. Returns the rows, the position
/// after them, and every stretch read past that holds no record that checks ([`Damage`]): the
/// reader goes on at the next record that does, so damage loses only itself.
pub fn read_range(
    dir: &Path,
    from: Position,
    to: Position,
    max_rows: usize,
) -> io::Result<(Vec<Row>, Position, Vec<Damage>)> {
    let mut rows = Vec::new();
    let mut at = from;
    let mut damage = Vec::new();
    while rows.len() < max_rows && at < to {
        let path = segment_path(dir, at.segment);
        let file = match File::open(&path) {
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
        let rest = stop - at.offset;
        let window = |want: u64| -> io::Result<Vec<u8>> {
            let mut bytes = vec![0u8; usize::try_from(want).unwrap_or(usize::MAX)];
            let mut file = &file;
            file.seek(SeekFrom::Start(at.offset))?;
            file.read_exact(&mut bytes)?;
            Ok(bytes)
        };
        let bytes = window(rest.min(4 << 20))?;
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
        if used > 0 {
            at.offset += used as u64;
            continue;
        }
        // No record that checks starts here (or one larger than the window does): read the
        // rest of the segment, where the next record that checks is looked for.
        let bytes = if (bytes.len() as u64) < rest {
            window(rest)?
        } else {
            bytes
        };
        let skip = match step(&bytes) {
            Step::Record(row, n) => {
                rows.push(*row);
                at.offset += n as u64;
                continue;
            }
            Step::Damaged(skip) => skip,
            Step::End => bytes.len(),
        };
        damage.push(Damage {
            at,
            len: skip as u64,
        });
        at.offset += skip as u64;
    }
    Ok((rows, at, damage))
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
    use crate::audit::record::sample as row;

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
                .append(&frames(batch * 5 + 1..=batch * 5 + 5))
                .await
                .unwrap();
        }
        let end = shared.lock().end;
        assert!(end.segment > 1, "segments rotate");
        let (rows, at, damage) = read_range(dir.path(), Position::default(), end, 1000).unwrap();
        assert_eq!(damage, []);
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

    /// Every seq `read_range` returns from the start of the spool to its end, and the damage.
    fn read_all(dir: &Path, shared: &SpoolShared) -> (Vec<i64>, Vec<Damage>) {
        let end = shared.lock().end;
        let (rows, at, damage) = read_range(dir, Position::default(), end, 1000).unwrap();
        assert_eq!(at, end);
        (rows.iter().map(|r| r.seq).collect(), damage)
    }

    fn flip(path: &Path, at: usize) {
        let mut bytes = fs::read(path).unwrap();
        bytes[at] ^= 0x20;
        fs::write(path, bytes).unwrap();
    }

    /// A record damaged on disk, wherever it is in whichever segment and whichever of its bytes
    /// is hit, takes only itself: the spool is not cut at open, the reader goes on at the next
    /// record, and the damage is reported with its place.
    #[tokio::test]
    async fn a_damaged_record_loses_only_itself() {
        // The magic, the length, the checksum, the payload.
        for byte in [1, 5, 9, HEADER + 20] {
            // The first record of the newest segment, one in its middle, its last one, and
            // one in the middle of an older segment.
            for (segment, record) in [(2, 0), (2, 2), (2, 4), (1, 2)] {
                let dir = tempfile::tempdir().unwrap();
                let (mut spool, shared, _) = Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
                spool.append(&frames(1..=5)).await.unwrap();
                spool.fresh = true;
                spool.current = None;
                spool.append(&frames(6..=10)).await.unwrap();
                let end = shared.lock().end;
                assert_eq!(end.segment, 2);
                drop(spool);
                let path = segment_path(dir.path(), segment);
                let first = (segment as i64 - 1) * 5 + 1;
                let lost = first + record as i64;
                let offset = frames(first..=lost - 1).len();
                let len = frames(lost..=lost).len();
                flip(&path, offset + byte);
                let size = fs::metadata(&path).unwrap().len();

                let (_spool, shared, recovered) =
                    Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
                let case = format!("byte {byte} of record {record} of segment {segment}");
                assert_eq!(recovered.truncated_bytes, 0, "{case}");
                assert_eq!(fs::metadata(&path).unwrap().len(), size, "{case}");
                assert_eq!(shared.lock().end, end, "{case}");
                let head = if lost == 10 { 9 } else { 10 };
                assert_eq!(recovered.head.map(|(_, h)| h.seq), Some(head), "{case}");
                let (seqs, damage) = read_all(dir.path(), &shared);
                let expected: Vec<i64> = (1..=10).filter(|seq| *seq != lost).collect();
                assert_eq!(seqs, expected, "{case}");
                let at = Position {
                    segment,
                    offset: offset as u64,
                };
                assert_eq!(
                    damage,
                    [Damage {
                        at,
                        len: len as u64
                    }],
                    "{case}"
                );
            }
        }
    }

    /// A torn write is cut; a whole record at the end whose length alone was damaged is not
    /// taken for one.
    #[tokio::test]
    async fn a_torn_tail_is_cut_and_a_damaged_length_at_the_end_is_not_a_torn_write() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, _, _) = Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
        spool.append(&frames(1..=3)).await.unwrap();
        drop(spool);
        let path = segment_path(dir.path(), 1);
        let len = frames(1..=1).len();
        // The last record's length now runs past the end of the file.
        flip(&path, 2 * len + 6);
        let (_spool, shared, recovered) = Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
        assert_eq!(recovered.truncated_bytes, 0);
        let (seqs, damage) = read_all(dir.path(), &shared);
        assert_eq!(seqs, [1, 2]);
        assert_eq!(damage.len(), 1, "{damage:?}");
        assert_eq!(damage[0].at.offset, 2 * len as u64);
    }

    #[test]
    fn a_copy_of_a_damaged_segment_is_kept_beside_it_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let shared = SpoolShared::default();
        let bytes = frames(1..=2);
        fs::write(segment_path(dir.path(), 3), &bytes).unwrap();
        shared.lock().segments.insert(3, bytes.len() as u64);
        let copy = quarantine(dir.path(), &shared, 3, 1 << 20).unwrap();
        assert_eq!(copy.path, dir.path().join("000000000003.seg.corrupt"));
        assert_eq!(copy.dropped, Vec::<PathBuf>::new());
        assert_eq!(fs::read(&copy.path).unwrap(), bytes);
        assert_eq!(list_segments(dir.path()).unwrap().len(), 1, "no segment");
        assert_eq!(shared.lock().bytes(), 2 * bytes.len() as u64);
        // Made again, it replaces itself.
        quarantine(dir.path(), &shared, 3, 1 << 20).unwrap();
        assert_eq!(shared.lock().bytes(), 2 * bytes.len() as u64);
        // A copy removed by hand stops counting.
        fs::remove_file(&copy.path).unwrap();
        let (spool_bytes, copies) = shared.refresh_quarantined(dir.path()).unwrap();
        assert_eq!((spool_bytes, copies), (bytes.len() as u64, 0));
    }

    /// At most MAX_QUARANTINED copies are kept, the oldest removed first; a copy that would
    /// take the spool past its cap is not made, and takes nothing away.
    #[tokio::test]
    async fn copies_of_damaged_segments_are_bounded_in_number_and_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, shared, _) = Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
        let mut segments = Vec::new();
        for batch in 0..MAX_QUARANTINED as i64 + 2 {
            spool
                .append(&frames(batch * 2 + 1..=batch * 2 + 2))
                .await
                .unwrap();
            segments.push(spool.current.as_ref().unwrap().number);
            spool.fresh = true;
            spool.current = None;
        }
        let mut dropped = Vec::new();
        for number in &segments {
            dropped.extend(
                quarantine(dir.path(), &shared, *number, 1 << 24)
                    .unwrap()
                    .dropped,
            );
        }
        assert_eq!(
            dropped,
            [
                quarantine_path(dir.path(), segments[0]),
                quarantine_path(dir.path(), segments[1])
            ]
        );
        let kept: Vec<u64> = list_quarantined(dir.path(), false)
            .unwrap()
            .into_keys()
            .collect();
        assert_eq!(kept, segments[2..]);
        let on_disk: u64 = fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap())
            .filter(|entry| {
                let name = entry.file_name().into_string().unwrap();
                name.ends_with(".seg") || name.ends_with(".seg.corrupt")
            })
            .map(|entry| entry.metadata().unwrap().len())
            .sum();
        assert_eq!(shared.lock().bytes(), on_disk);

        // The cap: the spool holds its segments and four copies; one more copy replaces the
        // oldest but must still fit.
        let full = shared.lock().bytes();
        let error = quarantine(dir.path(), &shared, segments[0], full - 1).unwrap_err();
        assert!(
            error.to_string().contains("--audit-spool-max-bytes"),
            "{error}"
        );
        assert!(!quarantine_path(dir.path(), segments[0]).exists());
        assert_eq!(
            list_quarantined(dir.path(), false).unwrap().len(),
            MAX_QUARANTINED
        );
        assert_eq!(
            shared.lock().bytes(),
            full,
            "nothing reserved is left behind"
        );
        let made = quarantine(dir.path(), &shared, segments[0], full).unwrap();
        assert_eq!(made.dropped, [quarantine_path(dir.path(), segments[2])]);
        drop(spool);

        // More copies than are kept, left by an older release: the oldest go at open, and a
        // temporary copy a crash left is removed.
        for extra in [1000, 1001] {
            fs::copy(&made.path, quarantine_path(dir.path(), extra)).unwrap();
        }
        fs::write(quarantine_tmp_path(dir.path(), 7), b"half").unwrap();
        let (_spool, shared, recovered) = Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
        assert_eq!(recovered.dropped_copies.len(), 2);
        assert_eq!(shared.lock().quarantined.len(), MAX_QUARANTINED);
        assert!(!quarantine_tmp_path(dir.path(), 7).exists());
        assert!(quarantine_path(dir.path(), 1001).exists());
    }

    /// Spooled rows hold tool input and prompts: the spool is its owner's alone, whatever the
    /// umask.
    #[tokio::test]
    async fn the_spool_and_its_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("data/spool");
        let (mut spool, shared, _) = Spool::open(&dir, 4096, 1 << 20).unwrap();
        spool.append(&frames(1..=5)).await.unwrap();
        write_shipped(&dir, shared.lock().end).unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&parent.path().join("data")), 0o700);
        let files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        assert!(files.len() >= 4, "{files:?}");
        for file in files {
            assert_eq!(mode(&file), 0o600, "{}", file.display());
        }
    }

    #[tokio::test]
    async fn the_cap_refuses_and_shipped_segments_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, shared, _) = Spool::open(dir.path(), 4096, 8192).unwrap();
        let mut refused = false;
        for batch in 0..100 {
            match spool.append(&frames(batch * 5 + 1..=batch * 5 + 5)).await {
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
        let left = delete_shipped(dir.path(), &shared);
        assert!(left <= 4096 + 2048, "{left}");
        spool.append(&frames(1..=1)).await.unwrap();
    }

    #[tokio::test]
    async fn a_failed_sync_keeps_the_refused_rows_out_and_starts_a_new_segment() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, shared, _) = Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
        let first = spool.append(&frames(1..=3)).await.unwrap();
        spool.fail_syncs = true;
        let refused = spool.append(&frames(4..=6)).await;
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
        let next = spool.append(&frames(4..=5)).await.unwrap();
        assert_eq!(
            next.segment,
            first.segment + 1,
            "a new segment after a failed sync"
        );
        let (rows, _, damage) = read_range(dir.path(), Position::default(), next, 100).unwrap();
        assert_eq!(damage, []);
        assert_eq!(
            rows.iter().map(|r| r.seq).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
    }

    #[tokio::test]
    async fn an_empty_newest_segment_neither_ends_the_spool_nor_hides_its_last_row() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, shared, _) = Spool::open(dir.path(), 4096, 1 << 20).unwrap();
        for batch in 0..10 {
            spool
                .append(&frames(batch * 5 + 1..=batch * 5 + 5))
                .await
                .unwrap();
        }
        let end = shared.lock().end;
        drop(spool);
        write_shipped(dir.path(), end).unwrap();
        // A rotation whose first append then failed left the next segment empty.
        File::create(segment_path(dir.path(), end.segment + 1)).unwrap();

        let (mut spool, shared, recovered) = Spool::open(dir.path(), 4096, 1 << 20).unwrap();
        assert_eq!(recovered.head.map(|(_, head)| head.seq), Some(50));
        {
            let state = shared.lock();
            assert_eq!(state.end, end);
            assert!(!state.spooling, "every row is shipped: nothing to spool");
        }
        delete_shipped(dir.path(), &shared);
        assert!(
            segment_path(dir.path(), end.segment).exists(),
            "the segment with the last row is kept"
        );
        let next = spool.append(&frames(51..=51)).await.unwrap();
        assert!(next > end);
        let (rows, _, _) = read_range(dir.path(), end, next, 10).unwrap();
        assert_eq!(rows.iter().map(|r| r.seq).collect::<Vec<_>>(), [51]);
    }

    #[tokio::test]
    async fn the_head_file_reads_back_what_was_recorded_last() {
        let dir = tempfile::tempdir().unwrap();
        let (mut spool, _, recovered) = Spool::open(dir.path(), 4096, 1 << 20).unwrap();
        assert_eq!(recovered.recorded, None);
        let record = |replica: &str, seq, claimed| HeadRecord {
            replica_id: replica.into(),
            settled: Head {
                seq,
                hash: [seq as u8; 32],
                time_us: seq * 10,
            },
            claimed,
        };
        spool
            .record_head(&record("a-longer-replica-id", 7, 9))
            .unwrap();
        spool.record_head(&record("b", 9, 9)).unwrap();
        drop(spool);
        let (_spool, _, recovered) = Spool::open(dir.path(), 4096, 1 << 20).unwrap();
        assert_eq!(
            recovered.recorded,
            Some(record("b", 9, 9)),
            "the shorter record written over the longer one"
        );

        // A torn or foreign file is no head at all.
        let path = head_path(dir.path());
        let mut bytes = fs::read(&path).unwrap();
        bytes[13] ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert_eq!(HeadRecord::decode(&bytes), None);
        assert_eq!(HeadRecord::decode(b"TGH1"), None);
        assert_eq!(HeadRecord::decode(&[0xff; 100]), None);
    }

    /// A replica's spool directory says where the database's chain must end: at the `head`
    /// file's settled head, or before the first row that still waits to be shipped.
    #[tokio::test]
    async fn a_spooled_head_is_what_the_database_must_reach() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(spooled_head(dir.path()).unwrap(), None, "no head file");
        assert!(
            spooled_head(&dir.path().join("none")).is_err(),
            "no directory"
        );
        // A chain of rows 1..=6 whose first three were shipped.
        let mut rows = Vec::new();
        let mut prev = GENESIS;
        for seq in 1..=6 {
            let mut row = row(seq);
            row.prev_hash = prev;
            row.hash = row.compute_hash();
            prev = row.hash;
            rows.push(row);
        }
        let (mut spool, _, _) = Spool::open(dir.path(), 1 << 20, 1 << 24).unwrap();
        let mut shipped = Position::default();
        for (i, row) in rows.iter().enumerate() {
            let mut frame = Vec::new();
            encode(row, &mut frame);
            let end = spool.append(&frame).await.unwrap();
            if i == 2 {
                shipped = end;
            }
        }
        let record = |seq: usize| HeadRecord {
            replica_id: "r".into(),
            settled: Head::of(&rows[seq - 1]),
            claimed: seq as i64,
        };
        spool.record_head(&record(6)).unwrap();
        write_shipped(dir.path(), shipped).unwrap();
        let head = spooled_head(dir.path()).unwrap().unwrap();
        assert_eq!(head.waiting, Some((4, rows[2].hash, 3)));
        assert_eq!(head.in_database(), Some((3, rows[2].hash)));
        // All shipped: the settled head.
        write_shipped(dir.path(), spool.shared.lock().end).unwrap();
        let head = spooled_head(dir.path()).unwrap().unwrap();
        assert_eq!(head.waiting, None);
        assert_eq!(head.in_database(), Some((6, rows[5].hash)));
        // Nothing shipped: the chain starts in the spool, and the database need hold none of it.
        write_shipped(dir.path(), Position::default()).unwrap();
        let head = spooled_head(dir.path()).unwrap().unwrap();
        assert_eq!(head.in_database(), None);
        // A restarted chain's head before its first row is no row.
        write_shipped(dir.path(), spool.shared.lock().end).unwrap();
        let restarted = HeadRecord {
            settled: Head {
                seq: 1_000_000,
                hash: GENESIS,
                time_us: 0,
            },
            ..record(6)
        };
        spool.record_head(&restarted).unwrap();
        assert_eq!(
            spooled_head(dir.path()).unwrap().unwrap().in_database(),
            None
        );
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

    /// A record that a build from before `winner_bundle` spooled has no such key in its JSON.
    /// It still reads back and checks, so an upgrade ships what the older build left in the
    /// spool (`docs/architecture.md`, "Upgrades of a store that holds data").
    #[test]
    fn a_record_spooled_before_winner_bundle_existed_reads_back() {
        let row = row(1);
        let mut json = serde_json::to_value(&row).unwrap();
        json.as_object_mut().unwrap().remove("winner_bundle");
        let payload = serde_json::to_vec(&json).unwrap();
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_le_bytes());
        bytes.extend_from_slice(&row.hash[..8]);
        bytes.extend_from_slice(&payload);
        let read = decode_one(&bytes).expect("an older build's record checks");
        assert_eq!(read, (row, bytes.len()));
    }
}
