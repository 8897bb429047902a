//! toolgate: the policy decision service and CLI around `toolgate-engine`.

pub mod offline;
