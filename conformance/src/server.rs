//! Servers the scenarios run against.
//!
//! A [`Server`] answers [`Request`]s with [`Response`]s. Two implementations ship:
//! [`ModelServer`] (the reference model in process) and [`ExternalServer`] (any program
//! speaking the framed JSON protocol of `SERVER.md` on its stdin/stdout, with a
//! per-request timeout and crash detection). [`ServerSpec`] creates a fresh server for
//! each scenario.

use crate::model::{Model, Mutant, Reject};
use crate::process::{ExchangeError, FramedProcess};
use crate::protocol::{Request, Response, PROTOCOL_VERSION};
use crate::wireinfo::{WireFormat, WireInfo};
use std::time::{Duration, Instant};

pub use crate::process::MAX_FRAME;

/// Why a server could not answer.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The server did not answer within the per-request timeout (it has been killed).
    #[error("server did not answer {op} within {timeout:?} (killed)")]
    Timeout {
        /// The request's op.
        op: String,
        /// The limit.
        timeout: Duration,
    },
    /// The server process exited or closed its stdout.
    #[error("server process ended while handling {op}: {detail}")]
    Crashed {
        /// The request's op.
        op: String,
        /// Exit status and the tail of its stderr.
        detail: String,
    },
    /// The server could not be started.
    #[error("cannot start server: {0}")]
    Spawn(String),
    /// The server sent something that is not a valid response.
    #[error("protocol error: {0}")]
    Protocol(String),
}

/// Anything that answers requests.
pub trait Server {
    /// Answer one request.
    fn call(&mut self, req: &Request) -> Result<Response, ServerError>;
    /// The optional capabilities the server declared in `hello`.
    fn capabilities(&self) -> Vec<String>;
    /// The name the server gave in `hello`, if any.
    fn name(&self) -> Option<String> {
        None
    }
}

/// The reference model served in process. Info arrays cross a real codec boundary:
/// they arrive as wire bytes and are decoded here.
#[derive(Debug, Default)]
pub struct ModelServer {
    model: Model,
    /// Whether `observe` (the internal state) is offered, and declared in `hello`.
    introspection: bool,
    /// Answer `unsupported` to every request but `hello` and `shutdown` (a test aid: the
    /// suite must not report such a server as conforming).
    refuse_all: bool,
}

impl ModelServer {
    /// A model server, optionally serving a mutant, with the introspection capability.
    pub fn new(mutant: Option<Mutant>) -> Self {
        ModelServer {
            model: Model::new(mutant),
            introspection: true,
            refuse_all: false,
        }
    }

    /// A model server that offers only what a real server offers: no `observe`.
    pub fn observables_only(mutant: Option<Mutant>) -> Self {
        ModelServer {
            introspection: false,
            ..ModelServer::new(mutant)
        }
    }

    /// A server that answers `unsupported` to everything (see `refuse_all`).
    pub fn refusing() -> Self {
        ModelServer {
            refuse_all: true,
            introspection: false,
            ..ModelServer::new(None)
        }
    }

    /// This server with strict ownership (`pmix-model-server --strict-ownership`): job
    /// control (`kill`) refuses a requester without a granted privilege, whatever its uid
    /// ([`Model::set_strict_ownership`]).
    pub fn with_strict_ownership(mut self) -> Self {
        self.model.set_strict_ownership(true);
        self
    }

    /// The capabilities `hello` declares.
    pub fn capabilities(&self) -> Vec<String> {
        if self.introspection {
            vec![crate::protocol::INTROSPECTION.to_string()]
        } else {
            Vec::new()
        }
    }

    /// Answer one request (never fails: errors become statuses).
    pub fn handle(&mut self, req: &Request) -> Response {
        match self.dispatch(req) {
            Ok(r) => r,
            Err(Reject { status, message }) => Response {
                status: status.0,
                message: Some(message),
                ..Default::default()
            },
        }
    }

    fn decode(info: &WireInfo) -> Result<Vec<pmix_codec::Info>, Reject> {
        info.decode().map_err(|m| Reject {
            status: pmix_codec::Status::ERR_UNPACK_FAILURE,
            message: m,
        })
    }

    fn encode(&self, info: &[pmix_codec::Info]) -> Result<WireInfo, Reject> {
        self.model.format().encode(info).map_err(|m| Reject {
            status: pmix_codec::Status::ERR_PACK_FAILURE,
            message: m,
        })
    }

    fn dispatch(&mut self, req: &Request) -> Result<Response, Reject> {
        let ok = Response::status(0);
        let refused = match req {
            Request::Hello { .. } | Request::Shutdown => false,
            Request::Observe => self.refuse_all || !self.introspection,
            _ => self.refuse_all,
        };
        if refused {
            return Ok(Response {
                unsupported: Some("this server does not offer this request".into()),
                ..ok
            });
        }
        match req {
            Request::Hello { .. } => Ok(Response {
                server: Some("pmix-conformance reference model".into()),
                capabilities: self.capabilities(),
                ..ok
            }),
            Request::Start {
                nodes,
                unavailable,
                scheduler_honors_warn_timeout,
                component,
            } => {
                let fmt = WireFormat::parse(component, "non-described").map_err(|m| Reject {
                    status: pmix_codec::Status::ERR_BAD_PARAM,
                    message: m,
                })?;
                self.model
                    .start(nodes, unavailable, *scheduler_honors_warn_timeout, fmt)?;
                Ok(ok)
            }
            Request::ToolConnect { tool } => self.model.tool_connect(tool).map(|_| ok),
            Request::Alloc {
                requester,
                directive,
                info,
                grant,
            } => {
                let info = Self::decode(info)?;
                let reply = self.model.alloc(requester, *directive, &info, grant)?;
                let info = if reply.info.is_empty() {
                    None
                } else {
                    Some(self.encode(&reply.info)?)
                };
                Ok(Response { info, ..ok })
            }
            Request::Spawn {
                requester,
                nspace,
                info,
                ..
            } => {
                let info = Self::decode(info)?;
                let c = self.model.spawn(requester, nspace, &info)?;
                Ok(Response {
                    candidates: Some(c),
                    ..ok
                })
            }
            Request::Terminate { nspace } => self.model.terminate(nspace).map(|_| ok),
            Request::Kill { requester, nspace } => self.model.kill(requester, nspace).map(|_| ok),
            Request::Reclaim { alloc, .. } => self.model.reclaim(alloc).map(|_| ok),
            Request::TimeoutWarning { alloc, remaining } => {
                self.model.timeout_warning(alloc, *remaining).map(|_| ok)
            }
            Request::Teardown => self.model.teardown().map(|_| ok),
            Request::Observe => {
                let s = self.model.snapshot().map_err(|m| Reject {
                    status: pmix_codec::Status::ERR_PACK_FAILURE,
                    message: m,
                })?;
                Ok(Response {
                    state: Some(s),
                    ..ok
                })
            }
            Request::Probe => Ok(Response {
                candidates: Some(self.model.probe_default()?),
                ..ok
            }),
            Request::Query => {
                let o = self.model.observed().map_err(|m| Reject {
                    status: pmix_codec::Status::ERR_PACK_FAILURE,
                    message: m,
                })?;
                Ok(Response {
                    observed: Some(o),
                    ..ok
                })
            }
            Request::Shutdown => Ok(ok),
        }
    }
}

impl Server for ModelServer {
    fn call(&mut self, req: &Request) -> Result<Response, ServerError> {
        Ok(self.handle(req))
    }
    fn capabilities(&self) -> Vec<String> {
        ModelServer::capabilities(self)
    }
}

pub use crate::process::{read_frame, write_frame};

/// A server in another process speaking the framed JSON protocol on stdin/stdout.
pub struct ExternalServer {
    proc: FramedProcess,
    timeout: Duration,
    capabilities: Vec<String>,
    name: Option<String>,
}

impl ExternalServer {
    /// Start `argv[0]` with the remaining arguments.
    pub fn spawn(argv: &[String], timeout: Duration) -> Result<Self, ServerError> {
        if argv.is_empty() {
            return Err(ServerError::Spawn("empty server command".into()));
        }
        let proc = FramedProcess::spawn(argv).map_err(ServerError::Spawn)?;
        Ok(ExternalServer {
            proc,
            timeout,
            capabilities: Vec::new(),
            name: None,
        })
    }
}

fn op_name(req: &Request) -> String {
    serde_json::to_value(req)
        .ok()
        .and_then(|v| v.get("op").and_then(|o| o.as_str()).map(str::to_string))
        .unwrap_or_else(|| "request".into())
}

impl Server for ExternalServer {
    fn call(&mut self, req: &Request) -> Result<Response, ServerError> {
        let op = op_name(req);
        if self.proc.is_dead() {
            return Err(ServerError::Crashed {
                op,
                detail: "the server already failed".into(),
            });
        }
        let body = serde_json::to_vec(req).map_err(|e| ServerError::Protocol(e.to_string()))?;
        match self.proc.exchange(&body, Instant::now() + self.timeout) {
            Ok(frame) => serde_json::from_slice::<Response>(&frame).map_err(|e| {
                let text = String::from_utf8_lossy(&frame[..frame.len().min(200)]).into_owned();
                ServerError::Protocol(format!("invalid response to {op}: {e}: {text}"))
            }),
            Err(ExchangeError::Timeout) => Err(ServerError::Timeout {
                op,
                timeout: self.timeout,
            }),
            Err(ExchangeError::Ended(detail)) => Err(ServerError::Crashed { op, detail }),
            Err(ExchangeError::BadFrame(detail)) => Err(ServerError::Crashed {
                op,
                detail: format!("unreadable output ({detail})"),
            }),
        }
    }
    fn capabilities(&self) -> Vec<String> {
        self.capabilities.clone()
    }
    fn name(&self) -> Option<String> {
        self.name.clone()
    }
}

impl Drop for ExternalServer {
    fn drop(&mut self) {
        let last = serde_json::to_vec(&Request::Shutdown).ok();
        // A bridge to a real server needs time to stop what it started (a DVM).
        let grace = self.timeout.min(Duration::from_secs(30));
        self.proc.finish(last.as_deref(), grace);
    }
}

/// How to obtain a fresh server for each scenario.
#[derive(Clone, Debug)]
pub enum ServerSpec {
    /// The reference model in process, optionally a mutant.
    Model(Option<Mutant>),
    /// The reference model without the introspection capability: only what a real server
    /// can show (statuses, returned infos, events, query answers).
    ModelObservablesOnly(Option<Mutant>),
    /// A server answering `unsupported` to everything (a test aid).
    Refusing,
    /// An external program (argv) and its per-request timeout.
    External {
        /// The command line.
        argv: Vec<String>,
        /// Per-request timeout.
        timeout: Duration,
    },
}

impl ServerSpec {
    /// A fresh server.
    pub fn create(&self) -> Result<Box<dyn Server>, ServerError> {
        match self {
            ServerSpec::Model(m) => Ok(Box::new(ModelServer::new(*m))),
            ServerSpec::ModelObservablesOnly(m) => Ok(Box::new(ModelServer::observables_only(*m))),
            ServerSpec::Refusing => Ok(Box::new(ModelServer::refusing())),
            ServerSpec::External { argv, timeout } => {
                let mut s = ExternalServer::spawn(argv, *timeout)?;
                let r = s.call(&Request::Hello {
                    protocol: PROTOCOL_VERSION,
                })?;
                if r.status != 0 {
                    return Err(ServerError::Protocol(format!(
                        "hello returned status {}",
                        r.status
                    )));
                }
                s.capabilities = r.capabilities;
                s.name = r.server;
                Ok(Box::new(s))
            }
        }
    }

    /// A short description for reports.
    pub fn describe(&self) -> String {
        match self {
            ServerSpec::Model(None) => "reference model".into(),
            ServerSpec::Model(Some(m)) => format!("mutant {m}"),
            ServerSpec::ModelObservablesOnly(None) => "reference model (observables only)".into(),
            ServerSpec::ModelObservablesOnly(Some(m)) => {
                format!("mutant {m} (observables only)")
            }
            ServerSpec::Refusing => "a server refusing everything".into(),
            ServerSpec::External { argv, .. } => format!("external: {}", argv.join(" ")),
        }
    }
}
