//! The events the host raised, delivered to their processes: on tag 0, as
//! `pmix_client_notify_recv` reads them: the NOTIFY command, STATUS, the source PROC,
//! `size_t ninfo`, INFO\[ninfo\].

use pmix_codec::{DataType, Item, Value};
use pmix_ptl::command::cmd;

use crate::host::Notice;
use crate::job::RANK_WILDCARD;
use crate::shared::Shared;
use crate::state::{Outbox, ReplyTo};

/// Deliver every notice of `notices`, each to its process.
pub fn deliver_all(sh: &Shared, notices: &[Notice]) {
    for n in notices {
        deliver(sh, n);
    }
}

/// Send `n` to its process (every connected rank of its namespace for the wildcard); a
/// process not connected misses it.
fn deliver(sh: &Shared, n: &Notice) {
    let targets: Vec<ReplyTo> = sh
        .peers
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|((ns, r), _)| *ns == n.to.0 && (n.to.1 == RANK_WILDCARD || *r == n.to.1))
        .map(|(_, to)| to.clone())
        .collect();
    let mut out = Outbox::new();
    for to in targets {
        let mut items = vec![
            Item::one(Value::Command(cmd::NOTIFY)),
            Item::one(Value::Status(n.status)),
            Item::one(Value::proc(&n.source.0, n.source.1)),
            Item::one(Value::Size(n.infos.len() as u64)),
        ];
        if !n.infos.is_empty() {
            items.push(Item::new(
                DataType::INFO,
                n.infos
                    .iter()
                    .map(|i| Value::Info(Box::new(i.clone())))
                    .collect(),
            ));
        }
        if let Ok(p) = to.codec.encode(&items) {
            out.push((to, p));
        }
    }
    sh.flush(out);
}
