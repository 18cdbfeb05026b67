//! The readable tree form of decoded items (`pmix-wire decode --output tree`).

use pmix_codec::json::value_to_json;
use pmix_codec::Item;
use serde_json::Value as J;

/// Items as an indented tree, one line per value, structures opened field by field;
/// written value by value to `w` (the tree of a large message is never held whole).
pub fn write(w: &mut dyn std::io::Write, items: &[Item]) -> std::io::Result<()> {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        writeln!(w, "item {i}: {} x{}", item.ty, item.values.len())?;
        for (k, v) in item.values.iter().enumerate() {
            out.clear();
            node(&mut out, 1, &format!("[{k}]"), &value_to_json(v));
            w.write_all(out.as_bytes())?;
        }
    }
    Ok(())
}

fn scalar(j: &J) -> Option<String> {
    match j {
        J::Null => Some("null".into()),
        J::Bool(b) => Some(b.to_string()),
        J::Number(n) => Some(n.to_string()),
        J::String(s) => Some(format!("{s:?}")),
        J::Object(o) if o.len() == 1 && o.get("hex").is_some_and(J::is_string) => {
            let h = o["hex"].as_str().unwrap_or_default();
            Some(if h.is_empty() {
                "0 bytes".into()
            } else {
                format!("{} bytes {h}", h.len() / 2)
            })
        }
        J::Array(a) if a.is_empty() => Some("[]".into()),
        _ => None,
    }
}

fn node(out: &mut String, depth: usize, label: &str, j: &J) {
    let pad = "  ".repeat(depth);
    if let Some(s) = scalar(j) {
        out.push_str(&format!("{pad}{label}: {s}\n"));
        return;
    }
    match j {
        // A typed value {"type": T, "value": v}: show as `T v` when v is a scalar.
        J::Object(o)
            if o.len() <= 2
                && o.get("type").is_some_and(J::is_string)
                && (o.len() == 1 || o.contains_key("value")) =>
        {
            let t = o["type"].as_str().unwrap_or_default();
            match o.get("value") {
                None => out.push_str(&format!("{pad}{label}: {t}\n")),
                Some(v) => match scalar(v) {
                    Some(s) => out.push_str(&format!("{pad}{label}: {t} {s}\n")),
                    None => {
                        out.push_str(&format!("{pad}{label}: {t}\n"));
                        children(out, depth + 1, v);
                    }
                },
            }
        }
        _ => {
            out.push_str(&format!("{pad}{label}:\n"));
            children(out, depth + 1, j);
        }
    }
}

/// Struct fields in C declaration order (JSON objects come sorted by name).
const FIELD_ORDER: &[&str] = &[
    "cmd",
    "argv",
    "env",
    "cwd",
    "maxprocs",
    "info",
    "node",
    "proc",
    "fabric",
    "name",
    "hostname",
    "nodeid",
    "executable_name",
    "uuid",
    "osname",
    "disk",
    "net_interface",
    "envar",
    "key",
    "string",
    "flags",
    "type",
    "view",
    "coord",
    "coordinates",
    "value",
    "values",
    "regex",
    "endpt",
    "bytes",
    "count",
    "separator",
    "mindist",
    "maxdist",
    "pid",
    "state",
    "keys",
    "qualifiers",
    "nspace",
    "rank",
    "sec",
    "usec",
    "description",
];

fn children(out: &mut String, depth: usize, j: &J) {
    match j {
        J::Object(o) => {
            let mut fields: Vec<(&String, &J)> = o.iter().collect();
            fields.sort_by_key(|(k, _)| {
                FIELD_ORDER
                    .iter()
                    .position(|f| f == k)
                    .unwrap_or(FIELD_ORDER.len())
            });
            for (k, v) in fields {
                node(out, depth, k, v);
            }
        }
        J::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                node(out, depth, &format!("[{i}]"), v);
            }
        }
        other => node(out, depth, "", other),
    }
}
