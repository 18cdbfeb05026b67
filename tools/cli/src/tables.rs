//! `types`, `diff` and `inherit`: the reference tables and the cross-version byte diff.

use crate::inspect::{dissect, type_name};
use crate::{error_line, spaced, Side};
use pmix_codec::attrs::{
    alloc_directive_string, alloc_inheritance_string, AllocInherit, Attribute, ATTRIBUTES,
};
use pmix_codec::{BufferKind, Codec, Component, DataType, Error, Item, Release, Status};

/// The registration matrix: one row per type, one column per component.
pub fn types_matrix(release: Release) -> String {
    let shipped = release.components();
    let mut out = String::new();
    out.push_str(&format!("{:>3}  {:<24}", "id", "type"));
    for c in Component::ALL {
        let mark = if shipped.contains(&c) { " " } else { "*" };
        out.push_str(&format!("{:>4}{mark}", c.name()));
    }
    let header = out.trim_end().to_string();
    out = header;
    out.push('\n');
    let all: Vec<DataType> = (1..=75u16).map(DataType).collect();
    for t in &all {
        let mut row = format!("{:>3}  {:<24}", t.0, t.name().unwrap_or("?"));
        for c in Component::ALL {
            row.push_str(&format!(
                "{:>4} ",
                if c.registers(*t, release) { "x" } else { "." }
            ));
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    let mut row = format!("{:>3}  {:<24}", "", "total");
    for c in Component::ALL {
        row.push_str(&format!("{:>4} ", c.registered_types(release).len()));
    }
    out.push_str(row.trim_end());
    out.push('\n');
    out.push_str(&format!("release profile: {release}"));
    if shipped.len() < Component::ALL.len() {
        out.push_str("; * = not registered by this release (the codec refuses it)");
    }
    out.push('\n');
    out
}

/// One component's registered types, one per line.
pub fn types_list(c: Component, release: Release) -> String {
    let types = c.registered_types(release);
    let mut out = format!("{c} ({release}): {} types\n", types.len());
    for t in types {
        out.push_str(&format!("{:>3}  {}\n", t.0, t.name().unwrap_or("?")));
    }
    out
}

fn side_name(s: Side) -> String {
    format!("{}@{}", s.component, s.release)
}

/// Encode `items` with `c`: the bytes, each item's `(start, end)` in them (the encoding is
/// the concatenation of the calls), and the error that stopped it, if any (then the bytes
/// are those written before it).
pub fn item_spans(c: &Codec, items: &[Item]) -> (Vec<u8>, Vec<(usize, usize)>, Option<Error>) {
    let mut spans = Vec::new();
    let mut prev = 0;
    for i in 0..items.len() {
        match c.encode(&items[..=i]) {
            Ok(b) => {
                spans.push((prev, b.len()));
                prev = b.len();
            }
            Err(e) => return (e.partial.clone(), spans, Some(e)),
        }
    }
    (c.encode(items).unwrap_or_default(), spans, None)
}

/// Encode `items` with both sides and report, item by item, where the bytes differ.
/// Returns the report and whether both sides could encode everything.
pub fn diff(a: Side, b: Side, kind: BufferKind, items: &[Item], fields: bool) -> (String, bool) {
    let ca = Codec::new(a.component, kind).with_release(a.release);
    let cb = Codec::new(b.component, kind).with_release(b.release);
    let mut out = format!("A = {}, B = {}, {kind}\n", side_name(a), side_name(b));
    let spans = |c: &Codec| item_spans(c, items);
    let (ba, sa, ea) = spans(&ca);
    let (bb, sb, eb) = spans(&cb);
    let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
    let mut differing = 0;
    for (i, item) in items.iter().enumerate() {
        let count = item.values.len();
        out.push_str(&format!("item {i}: {} x{count}\n", item.ty));
        let ra = sa.get(i).map(|&(s, e)| &ba[s..e]);
        let rb = sb.get(i).map(|&(s, e)| &bb[s..e]);
        for (name, r, e) in [("A", ra, &ea), ("B", rb, &eb)] {
            match (r, e) {
                (Some(r), _) => out.push_str(&format!(
                    "  {name} {:>10}  {}\n",
                    plural(r.len(), "byte"),
                    spaced(r)
                )),
                (None, Some(e)) if e.item == i => {
                    out.push_str(&format!("  {name} error: {}\n", error_line(e)))
                }
                (None, _) => {
                    out.push_str(&format!("  {name} (not encoded: an earlier item failed)\n"))
                }
            }
        }
        match (ra, rb) {
            (Some(x), Some(y)) if x == y => out.push_str("  = identical\n"),
            (Some(x), Some(y)) => {
                differing += 1;
                let first = x
                    .iter()
                    .zip(y)
                    .position(|(p, q)| p != q)
                    .unwrap_or(x.len().min(y.len()));
                out.push_str(&format!("  ! differ from byte {first} of the item\n"));
                if fields {
                    for (name, codec, bytes, span) in
                        [("A", &ca, &ba, sa[i]), ("B", &cb, &bb, sb[i])]
                    {
                        out.push_str(&format!("  {name} fields:\n"));
                        let d = dissect(codec, bytes, Some(&types[..=i]));
                        for f in d.fields.iter().filter(|f| {
                            f.offset >= span.0 && f.offset < span.1.max(span.0 + 1) && f.depth > 0
                        }) {
                            let hex = spaced(&bytes[f.offset..f.offset + f.len]);
                            let hex = if hex.len() > 35 {
                                format!("{}...", &hex[..33])
                            } else {
                                hex
                            };
                            out.push_str(&format!(
                                "    {:>4}  {:<36}  {}{}\n",
                                f.offset - span.0,
                                hex,
                                "  ".repeat(f.depth - 1),
                                f.text
                            ));
                        }
                    }
                }
            }
            _ => differing += 1,
        }
    }
    let first = ba
        .iter()
        .zip(&bb)
        .position(|(p, q)| p != q)
        .or((ba.len() != bb.len()).then(|| ba.len().min(bb.len())));
    out.push_str(&format!(
        "A: {}  {}\n",
        plural(ba.len(), "byte"),
        pmix_oracle::hex::encode(&ba)
    ));
    out.push_str(&format!(
        "B: {}  {}\n",
        plural(bb.len(), "byte"),
        pmix_oracle::hex::encode(&bb)
    ));
    match first {
        None if ea.is_none() && eb.is_none() => out.push_str("identical\n"),
        None => out.push_str("the bytes written before the failure are identical\n"),
        Some(p) => out.push_str(&format!(
            "items differing: {differing} of {}; first difference at byte {p}\n",
            items.len()
        )),
    }
    (out, ea.is_none() && eb.is_none())
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("{n} {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// What a disposition does to a reservation.
pub fn inherit_meaning(a: AllocInherit) -> &'static str {
    match a {
        AllocInherit::None => "released when the owning namespace terminates",
        AllocInherit::Child => {
            "kept until every child namespace (including derived children) terminates"
        }
        AllocInherit::Default => {
            "becomes unreserved (stays in the session) when the owner terminates; the default"
        }
        AllocInherit::ChildDefault => "becomes unreserved when the last derived child terminates",
    }
}

fn attr_type(t: Option<DataType>) -> String {
    match t {
        Some(t) => type_name(t),
        None => "varies".into(),
    }
}

/// The inheritance mapping, the directive strings and the attribute dictionary.
pub fn inherit_tables() -> String {
    let mut out = String::from("PMIx_Alloc_inheritance_string (pmix_alloc_inheritance_t, type ALLOC_INHERIT (75), v61 only):\n");
    out.push_str(&format!("  {:>3}  {}\n", 0, alloc_inheritance_string(0)));
    for a in AllocInherit::ALL {
        out.push_str(&format!(
            "  {:>3}  {:<14}  {}\n",
            a as u8,
            alloc_inheritance_string(a as u8),
            inherit_meaning(a)
        ));
    }
    out.push_str(&format!(
        "  {:>3}  {:<14}  (any other value)\n",
        "5+",
        alloc_inheritance_string(5)
    ));
    out.push_str(
        "\nPMIx_Alloc_directive_string (pmix_alloc_directive_t, type ALLOC_DIRECTIVE (43)):\n",
    );
    for d in [1u8, 2, 3, 4, 5] {
        out.push_str(&format!("  {d:>3}  {}\n", alloc_directive_string(d)));
    }
    out.push_str(&format!(
        "  {:>3}  {}  (PMIX_ALLOC_EXTERNAL and up: implementer-defined)\n",
        128,
        alloc_directive_string(128)
    ));
    out.push_str("\nAllocation and spawn attributes:\n");
    out.push_str(&format!(
        "  {:<24}  {:<20}  {:<22}  {}\n",
        "macro", "key", "declared type", "note"
    ));
    for a in ATTRIBUTES {
        out.push_str(&format!(
            "  {:<24}  {:<20}  {:<22}  {}\n",
            a.name,
            a.key,
            attr_type(a.ty),
            a.note
        ));
    }
    out
}

/// The attributes `q` names: by macro name (with or without `PMIX_`, any case) or key.
pub fn attributes_matching(q: &str) -> Vec<&'static Attribute> {
    ATTRIBUTES
        .iter()
        .filter(|a| {
            a.name.eq_ignore_ascii_case(q)
                || a.key == q
                || a.name.eq_ignore_ascii_case(&format!("PMIX_{q}"))
        })
        .collect()
}

/// Look up an inheritance value, a disposition name, or an attribute.
pub fn inherit_lookup(q: &str) -> Result<String, (Status, String)> {
    if let Ok(v) = q.parse::<u8>() {
        return Ok(format!("{v} {}\n", alloc_inheritance_string(v)));
    }
    let up = q.to_ascii_uppercase();
    let bare = up.strip_prefix("PMIX_ALLOC_INHERIT_").unwrap_or(&up);
    if let Some(a) = AllocInherit::ALL
        .into_iter()
        .find(|a| alloc_inheritance_string(*a as u8) == bare)
    {
        return Ok(format!("{} {}: {}\n", a as u8, bare, inherit_meaning(a)));
    }
    let found = attributes_matching(q);
    if found.is_empty() {
        let dispositions: Vec<&str> = AllocInherit::ALL
            .into_iter()
            .map(|a| alloc_inheritance_string(a as u8))
            .collect();
        let attrs: Vec<&str> = ATTRIBUTES.iter().map(|a| a.name).collect();
        return Err((
            Status::ERR_NOT_FOUND,
            format!(
                "no inheritance value or allocation/spawn attribute matches {q:?} (valid: a value 0-255; a disposition {}; an attribute by macro name or key string: {})",
                dispositions.join(" "),
                attrs.join(" ")
            ),
        ));
    }
    Ok(found
        .iter()
        .map(|a| format!("{}  {}  {}  ({})\n", a.name, a.key, attr_type(a.ty), a.note))
        .collect())
}
