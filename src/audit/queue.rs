//! What travels from the request path to the writer: a built [`Row`] and, in durable mode, the
//! sender of its acknowledgement; and the writer's bounded memory of recent repeat keys.

use tokio::sync::oneshot;

use super::AuditError;
use super::record::Row;

/// One row waiting for the writer.
pub struct Pending {
    /// The row, without replica id, seq, hashes and repeat flag.
    pub row: Row,
    /// Told once the row is durable (durable mode), or why it could not be made durable.
    pub ack: Option<oneshot::Sender<Result<(), AuditError>>>,
}

/// How many (session_id, tool_use_id, event) keys a replica remembers to mark repeats.
pub const RECENT_KEYS: usize = 65_536;

/// The last [`RECENT_KEYS`] repeat keys, oldest forgotten first.
pub type RecentKeys = crate::recent::Recent<(String, String, String)>;
