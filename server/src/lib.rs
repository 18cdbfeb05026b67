//! # pmix-server
//!
//! A native PMIx server: unmodified libpmix clients of OpenPMIx 4.2 to 7.0 connect to it
//! over TCP loopback, and it answers them as an OpenPMIx server with gds `hash` does.
//! It launches local clients with the environment they need, hosts one job on one node,
//! and serves `PMIx_Init` (the job, node and rank data in the layout real servers send),
//! `PMIx_Get` (including keys other ranks put), `PMIx_Put`/`PMIx_Commit`, `PMIx_Fence`
//! with and without collected data, `PMIx_Abort` and `PMIx_Finalize`, and cleans up when a
//! connection is lost. Tools connect too (given or assigned id, or as the scheduler).
//! Queries, allocation requests, spawns, job control and events are handed up to the
//! server's [`host::Host`]: none by default, or the reference model of `pmix-conformance`
//! ([`host::model::ModelHost`]); a spawn it grants starts real processes, clients of this
//! server in a job of their own ([`spawn`]).
//!
//! Layout, in layers that import downward only (no two files import each other, even
//! through others), from the top: [`launch`] (the server's own job and its children),
//! [`server`] (listener, URI files, stop), [`event_loop`] (one thread reading and
//! answering every connection), [`handshake`] (the connect message), [`handlers`] (one
//! function per command), [`requests`] (the commands the host answers), [`spawn`]
//! (spawned jobs' processes, and settling what the host ended), [`notify`] (the host's
//! events to their processes), [`record`] (conversation vectors), [`peer`] (a connected
//! peer and the argument readers), [`shared`] (configuration, state, transcript, the
//! event loop's inbox), [`process`] (a client process's environment, command and kill),
//! [`state`] (commits, fences, waiting gets), [`outgoing`] (each connection's
//! non-blocking, bounded writing half), [`host`] (the host trait and the model host),
//! [`psec`] (the security modules offered), [`job`] (the job and the REQ reply). The wire
//! itself comes from `pmix-ptl` and `pmix-codec`.
//!
//! ## Bounds under hostile peers
//!
//! Nothing a peer sends makes the server hold more than these bounds (the options are
//! fields of [`Config`] and flags of `pmix-server serve` and `launch`); a peer that
//! reaches one gets a PMIx error status or its connection closed, never an abort:
//!
//! | limit | default | what the peer gets |
//! |---|---|---|
//! | [`Config::max_payload`] | 16 MiB | its connection closed |
//! | [`Config::max_buffered`] (partial frames across connections, beyond [`event_loop::FREE_PER_CONN`] each) | 64 MiB | the connection that would go over is closed |
//! | [`outgoing::MAX_QUEUED`] (replies not read) | 16 MiB | its connection closed |
//! | [`Config::max_clients`] | 1024 | `PMIX_ERR_OUT_OF_RESOURCE` in the connect reply |
//! | [`Config::max_tools`] (counted apart from clients) | 256 | `PMIX_ERR_OUT_OF_RESOURCE` in the connect reply |
//! | [`Config::max_handshakes`] | 64 | the longest-waiting handshake is closed |
//! | [`state::MAX_PENDING_GETS`] (per connection) | 1024 | `PMIX_ERR_OUT_OF_RESOURCE` for that get |
//! | [`state::MAX_KEY_LEN`] | 511 bytes | `PMIX_ERR_BAD_PARAM` for that get |
//! | [`state::MAX_PENDING_FENCES`] (per rank) | 64 | `PMIX_ERR_OUT_OF_RESOURCE` for that fence |
//! | [`Config::max_spawn_procs`] | 1024 | `PMIX_ERR_OUT_OF_RESOURCE`, before the host sizes anything |
#![warn(missing_docs)]

pub mod event_loop;
pub mod handlers;
pub mod handshake;
pub mod host;
pub mod job;
pub mod launch;
pub mod notify;
pub mod outgoing;
pub mod peer;
pub mod process;
pub mod psec;
pub mod record;
pub mod requests;
pub mod server;
pub mod shared;
pub mod spawn;
pub mod state;

pub use job::Job;
pub use launch::Launch;
pub use psec::Psec;
pub use server::Server;
pub use shared::{Config, Logged, Shared};

/// The version this server states in its URI files (as OpenPMIx writes `v<version>`).
pub const VERSION_LINE: &str = concat!("pmix-server-", env!("CARGO_PKG_VERSION"));
