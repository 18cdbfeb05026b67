//! `--json` for scripts: the JSON forms of `types`, `diff`, `inherit`, `encode`, and of
//! every error (`{"error": {...}}` on stdout, see `tools/cli/CLI.md`, "JSON for scripts").

use crate::tables::{attributes_matching, inherit_meaning, item_spans};
use crate::{error_json, Failure, Side};
use pmix_codec::attrs::{
    alloc_directive_string, alloc_inheritance_string, AllocInherit, Attribute, ATTRIBUTES,
};
use pmix_codec::{BufferKind, Codec, Component, DataType, Item, Release};
use serde_json::{json, Value as J};

/// The error object a `--json` run prints on stdout when it fails:
/// `{"error": {"exit_code": 2, "kind": "usage", "message": "..."}}`, plus `status`, `name`,
/// `offset` and `item` for a PMIx error from the codec (kind `pmix`), `status` and `name`
/// for a failed lookup (kind `status`).
pub fn failure_json(f: &Failure) -> J {
    let (kind, mut j) = match f {
        Failure::Pmix(e) => ("pmix", error_json(e)),
        Failure::Status(s, _) => (
            "status",
            json!({"status": s.0, "name": s.name().map(|n| format!("PMIX_{n}"))}),
        ),
        Failure::Usage(_) => ("usage", json!({})),
        Failure::Io(_) => ("io", json!({})),
    };
    j["kind"] = kind.into();
    j["exit_code"] = f.exit_code().into();
    j["message"] = f.line().into();
    json!({ "error": j })
}

/// A command-line error (from clap) as the same error object (kind `usage`, exit code 2).
pub fn usage_json(message: &str) -> J {
    let message = message.trim_end();
    let message = message.strip_prefix("error: ").unwrap_or(message);
    json!({"error": {"kind": "usage", "exit_code": crate::EXIT_USAGE, "message": message}})
}

fn type_json(t: DataType) -> J {
    json!({"id": t.0, "name": t.name()})
}

/// `types --json`: every type 1-75 with the components that register it, per component
/// totals, and which components the release ships.
pub fn types_json(release: Release) -> J {
    let shipped = release.components();
    let types: Vec<J> = (1..=75u16)
        .map(DataType)
        .map(|t| {
            let mut j = type_json(t);
            j["components"] = Component::ALL
                .into_iter()
                .filter(|c| c.registers(t, release))
                .map(|c| c.name())
                .collect::<Vec<_>>()
                .into();
            j
        })
        .collect();
    let components: Vec<J> = Component::ALL
        .into_iter()
        .map(|c| {
            json!({
                "component": c.name(),
                "registered_by_release": shipped.contains(&c),
                "types": c.registered_types(release).len(),
            })
        })
        .collect();
    json!({"release": release.name(), "components": components, "types": types})
}

/// `types -c C --json`: one component's registered types.
pub fn types_list_json(c: Component, release: Release) -> J {
    json!({
        "component": c.name(),
        "release": release.name(),
        "registered_by_release": release.components().contains(&c),
        "types": c.registered_types(release).into_iter().map(type_json).collect::<Vec<_>>(),
    })
}

/// `diff A B ITEMS --json`: both encodings item by item. The `bool` is whether both sides
/// encoded everything (the exit status, as in the text form).
pub fn diff_json(a: Side, b: Side, kind: BufferKind, items: &[Item]) -> (J, bool) {
    let ca = Codec::new(a.component, kind).with_release(a.release);
    let cb = Codec::new(b.component, kind).with_release(b.release);
    let (ba, sa, ea) = item_spans(&ca, items);
    let (bb, sb, eb) = item_spans(&cb, items);
    let first = |x: &[u8], y: &[u8]| {
        x.iter()
            .zip(y)
            .position(|(p, q)| p != q)
            .or((x.len() != y.len()).then(|| x.len().min(y.len())))
    };
    let mut differing = 0;
    let per_item: Vec<J> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let side =
                |bytes: &[u8], spans: &[(usize, usize)], e: &Option<pmix_codec::Error>| match (
                    spans.get(i),
                    e,
                ) {
                    (Some(&(s, t)), _) => json!({"hex": pmix_oracle::hex::encode(&bytes[s..t])}),
                    (None, Some(e)) if e.item == i => json!({"error": error_json(e)}),
                    (None, _) => json!({"not_encoded": "an earlier item failed"}),
                };
            let (ra, rb) = (
                sa.get(i).map(|&(s, t)| &ba[s..t]),
                sb.get(i).map(|&(s, t)| &bb[s..t]),
            );
            let first_byte = match (ra, rb) {
                (Some(x), Some(y)) => first(x, y),
                _ => None,
            };
            let identical = matches!((ra, rb), (Some(x), Some(y)) if x == y);
            if !identical {
                differing += 1;
            }
            json!({
                "item": i,
                "type": type_json(item.ty),
                "count": item.values.len(),
                "a": side(&ba, &sa, &ea),
                "b": side(&bb, &sb, &eb),
                "identical": identical,
                "first_differing_byte": first_byte,
            })
        })
        .collect();
    let name = |s: Side| format!("{}@{}", s.component, s.release);
    let j = json!({
        "a": {"codec": name(a), "hex": pmix_oracle::hex::encode(&ba), "error": ea.as_ref().map(error_json)},
        "b": {"codec": name(b), "hex": pmix_oracle::hex::encode(&bb), "error": eb.as_ref().map(error_json)},
        "buffer": kind.name(),
        "identical": ea.is_none() && eb.is_none() && ba == bb,
        "first_differing_byte": first(&ba, &bb),
        "items_differing": differing,
        "items": per_item,
    });
    (j, ea.is_none() && eb.is_none())
}

fn attribute_json(a: &Attribute) -> J {
    json!({"macro": a.name, "key": a.key, "type": a.ty.map(type_json), "note": a.note})
}

/// `inherit --json`: the inheritance mapping, the directive strings, the attributes.
pub fn inherit_json() -> J {
    let mut inheritance = vec![json!({"value": 0, "string": alloc_inheritance_string(0)})];
    inheritance.extend(AllocInherit::ALL.into_iter().map(|a| {
        json!({"value": a as u8, "string": alloc_inheritance_string(a as u8), "meaning": inherit_meaning(a)})
    }));
    let directives: Vec<J> = [1u8, 2, 3, 4, 5, 128]
        .into_iter()
        .map(|d| json!({"value": d, "string": alloc_directive_string(d)}))
        .collect();
    json!({
        "inheritance": inheritance,
        "directives": directives,
        "attributes": ATTRIBUTES.iter().map(attribute_json).collect::<Vec<_>>(),
    })
}

/// `inherit QUERY --json`: what the text lookup finds, as JSON (same errors).
pub fn inherit_lookup_json(q: &str) -> Result<J, Failure> {
    if let Ok(v) = q.parse::<u8>() {
        return Ok(json!({"value": v, "string": alloc_inheritance_string(v)}));
    }
    let up = q.to_ascii_uppercase();
    let bare = up.strip_prefix("PMIX_ALLOC_INHERIT_").unwrap_or(&up);
    if let Some(a) = AllocInherit::ALL
        .into_iter()
        .find(|a| alloc_inheritance_string(*a as u8) == bare)
    {
        return Ok(json!({"value": a as u8, "string": bare, "meaning": inherit_meaning(a)}));
    }
    // The text lookup decides what matches (and words the error).
    crate::tables::inherit_lookup(q).map_err(|(s, why)| Failure::Status(s, why))?;
    let found: Vec<J> = attributes_matching(q)
        .into_iter()
        .map(attribute_json)
        .collect();
    Ok(json!({ "attributes": found }))
}

/// `encode --json`: the bytes and the codec that wrote them.
pub fn encode_json(codec: &Codec, bytes: &[u8]) -> J {
    json!({
        "codec": format!("{}@{}", codec.component, codec.release),
        "buffer": codec.kind.name(),
        "bytes": bytes.len(),
        "hex": pmix_oracle::hex::encode(bytes),
    })
}
