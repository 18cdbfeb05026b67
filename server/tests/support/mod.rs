//! Helpers shared by pmix-server's integration tests.

pub mod replay;
