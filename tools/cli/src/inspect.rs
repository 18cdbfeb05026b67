//! The dissector behind `pmix-wire inspect`: the codec's own decoder, narrated.
//!
//! There is no second walker here. [`dissect`] runs [`Codec::decode_observed`] with a
//! [`Collector`], an [`Observer`] that turns what the decoder reports (each field's offset,
//! length, meaning and path; where structures open and close; where decoding fails) into an
//! annotated tree ([`Node`]). Every profile flag and quirk is therefore written once, in
//! the decoder, and the dissection ends where decoding ends and fails where it fails, with
//! the same status, offset and item, by construction (`tools/cli/tests/inspect_observer.rs`
//! checks those properties over every golden vector and truncations of them).
//!
//! [`render`] prints the tree as aligned lines (offset, bytes, field), [`to_json`] as JSON
//! (`pmix-wire inspect --json`).

use pmix_codec::attrs::{alloc_directive_string, alloc_inheritance_string};
use pmix_codec::float::{parse_strtod, parse_strtof};
use pmix_codec::observe::{Enc, Field as Event, Meaning, Observer, Path, Seg, TagRole};
use pmix_codec::{Codec, DataType, Error, Status};
use serde_json::{json, Value as J};

/// One line of a dissection: a field, or the header of a structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Offset of the first byte.
    pub offset: usize,
    /// Number of bytes (0 for structure headers, whose span is given in `text`).
    pub len: usize,
    /// Nesting depth (for indentation).
    pub depth: usize,
    /// What the bytes mean.
    pub text: String,
}

/// What one field of the tree holds, as the decoder reported it.
#[derive(Clone, Debug, PartialEq)]
pub enum Reading {
    /// An integer and its encoding.
    Int(i128, Enc),
    /// A type tag, what it is for and its encoding.
    Tag(DataType, TagRole, Enc),
    /// A string's length prefix and its encoding.
    StringLength(i32, Enc),
    /// A string, as the receiver holds it.
    Text(Vec<u8>),
    /// Raw bytes.
    Bytes,
    /// A note about the receiver (no bytes).
    Note(&'static str),
}

/// A node of the annotated tree: a structure the decoder opened, or a field it read.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The decoder's path to it.
    pub path: Vec<Seg>,
    /// Offset of the first byte.
    pub offset: usize,
    /// Bytes it spans.
    pub len: usize,
    /// A structure the decoder closed (false: decoding failed inside it).
    pub closed: bool,
    /// A field's reading; `None` for a structure.
    pub reading: Option<Reading>,
    /// A structure's fields and structures, in buffer order.
    pub children: Vec<Node>,
}

impl Node {
    fn end(&self) -> usize {
        self.offset + self.len
    }
}

/// The result of a dissection.
#[derive(Clone, Debug)]
pub struct Dissection {
    /// One node per unpack call, in buffer order.
    pub items_tree: Vec<Node>,
    /// The tree as lines, in buffer order.
    pub fields: Vec<Field>,
    /// Bytes the decoder consumed (up to the failing field on error).
    pub consumed: usize,
    /// Pack calls fully decoded.
    pub items: usize,
    /// The decoder's failure, exactly as `Codec::decode`/`decode_described` reports it.
    pub error: Option<Error>,
}

/// The [`Observer`] that builds the tree.
#[derive(Debug, Default)]
pub struct Collector {
    /// Finished top-level nodes.
    roots: Vec<Node>,
    /// Structures open now, outermost first.
    open: Vec<Node>,
    /// The failure's path, when decoding failed.
    failed_at: Option<String>,
}

impl Collector {
    fn attach(&mut self, node: Node) {
        match self.open.last_mut() {
            Some(parent) => parent.children.push(node),
            None => self.roots.push(node),
        }
    }
    /// Close what is still open (decoding failed inside it) and give the tree.
    pub fn finish(mut self) -> Vec<Node> {
        while let Some(mut node) = self.open.pop() {
            let end = node
                .children
                .iter()
                .map(Node::end)
                .max()
                .unwrap_or(node.offset);
            node.len = end - node.offset;
            self.attach(node);
        }
        self.roots
    }
}

impl Observer for Collector {
    fn field(&mut self, f: &Event<'_>) {
        let reading = match f.meaning {
            Meaning::Int { value, enc } => Reading::Int(value, enc),
            Meaning::Tag { ty, role, enc } => Reading::Tag(ty, role, enc),
            Meaning::StringLength { len, enc } => Reading::StringLength(len, enc),
            Meaning::Text { text } => Reading::Text(text.to_vec()),
            Meaning::Bytes => Reading::Bytes,
            Meaning::Note(n) => Reading::Note(n),
            _ => Reading::Bytes,
        };
        self.attach(Node {
            path: f.path.0.to_vec(),
            offset: f.offset,
            len: f.len,
            closed: true,
            reading: Some(reading),
            children: Vec::new(),
        });
    }
    fn open(&mut self, offset: usize, path: Path<'_>) {
        self.open.push(Node {
            path: path.0.to_vec(),
            offset,
            len: 0,
            closed: false,
            reading: None,
            children: Vec::new(),
        });
    }
    fn close(&mut self, offset: usize, _path: Path<'_>) {
        if let Some(mut node) = self.open.pop() {
            node.len = offset - node.offset;
            node.closed = true;
            self.attach(node);
        }
    }
    fn fail(&mut self, _error: &Error, path: Path<'_>) {
        self.failed_at = Some(path.to_string());
    }
}

/// Decode `bytes` as `codec` does, with the given call types or (fully described buffers
/// only, `types == None`) discovering each call's type from its tags, and keep the tree.
pub fn dissect(codec: &Codec, bytes: &[u8], types: Option<&[DataType]>) -> Dissection {
    let mut collector = Collector::default();
    // Only the number of items is kept: the values are not shown from here.
    let result = codec
        .decode_observed(bytes, types, &mut collector)
        .map(|items| items.len());
    let items_tree = collector.finish();
    let consumed = items_tree.last().map(Node::end).unwrap_or(0);
    let (items, error) = match result {
        Ok(items) => (items, None),
        Err(e) => (e.item, Some(e)),
    };
    let mut fields = Vec::new();
    for (i, node) in items_tree.iter().enumerate() {
        item_lines(i, node, &mut fields);
    }
    Dissection {
        items_tree,
        fields,
        consumed,
        items,
        error,
    }
}

// ---- the tree as lines ------------------------------------------------------------------

/// `NAME (id)`.
pub fn type_name(t: DataType) -> String {
    match t.name() {
        Some(n) => format!("{n} ({})", t.0),
        None => format!("unknown type {}", t.0),
    }
}

/// A call: `item i: TYPE (id) xN  (span)`, then its fields one level deeper.
fn item_lines(index: usize, node: &Node, out: &mut Vec<Field>) {
    let ty = match node.path.first() {
        Some(Seg::Type(t)) => type_name(*t),
        _ => String::new(),
    };
    let count = node
        .children
        .iter()
        .find_map(|c| match (&c.reading, c.path.last()) {
            (Some(Reading::Int(v, _)), Some(Seg::Name("count"))) => Some((*v).max(0)),
            _ => None,
        });
    let mut text = format!("item {index}: {ty}");
    if let Some(n) = count {
        text.push_str(&format!(" x{n}"));
    }
    if node.closed {
        text.push_str(&span(node.len));
    }
    out.push(Field {
        offset: node.offset,
        len: 0,
        depth: 0,
        text,
    });
    children_lines(node, 1, "", out);
}

fn span(n: usize) -> String {
    format!("  ({n} byte{})", if n == 1 { "" } else { "s" })
}

/// The label of step `i` of `path`: a type's name, a field's name, or an element's index
/// with its type (`[3] INFO`).
fn seg_label(path: &[Seg], i: usize) -> String {
    match path[i] {
        Seg::Type(t) => t
            .name()
            .map(str::to_string)
            .unwrap_or(format!("type {}", t.0)),
        Seg::Name(n) => n.to_string(),
        Seg::Index(k) => match i.checked_sub(1).map(|j| path[j]) {
            Some(Seg::Type(t)) => format!("[{k}] {}", t.name().unwrap_or("?")),
            _ => format!("[{k}]"),
        },
    }
}

/// The steps of `node` below its parent, as a label.
fn own_label(node: &Node, parent_len: usize) -> String {
    (parent_len..node.path.len())
        .map(|i| seg_label(&node.path, i))
        .collect::<Vec<_>>()
        .join(" ")
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        // an element of a named list: `argv[0]`
        _ if b.starts_with('[') => format!("{a}{b}"),
        _ => format!("{a} {b}"),
    }
}

/// What a field's neighbours add to it: a SIZE prefix is followed by its payload; an
/// integer follows the always-tag that named its width on the wire.
fn context(fields: &[Node], i: usize) -> (bool, Option<DataType>) {
    let f = &fields[i];
    let sized = matches!(f.reading, Some(Reading::Int(..)))
        && fields
            .get(i + 1)
            .is_some_and(|n| n.reading == Some(Reading::Bytes) && n.path == f.path);
    let tagged = match i.checked_sub(1).map(|j| &fields[j]) {
        Some(Node {
            reading: Some(Reading::Tag(t, TagRole::IntTag, _)),
            path,
            ..
        }) if *path == f.path && matches!(f.reading, Some(Reading::Int(..))) => Some(*t),
        _ => None,
    };
    (sized, tagged)
}

/// A structure renders flat when all it holds are unnamed fields (a string's length and
/// text, an integer's tag and value): they take its label.
fn is_flat(node: &Node) -> bool {
    node.reading.is_none()
        && !node.children.is_empty()
        && node
            .children
            .iter()
            .all(|c| c.reading.is_some() && c.path.len() == node.path.len())
}

/// A structure that needs no header of its own: a named part of a structure (a VALUE's
/// `value`, a PDATA's `proc`), unless it is a list of several structures; or the body of an
/// array (its elements say their index and type).
fn is_transparent(node: &Node) -> bool {
    let structures = node.children.iter().filter(|c| c.reading.is_none()).count();
    match node.path.last() {
        Some(Seg::Name(_)) => structures < 2,
        Some(Seg::Type(_)) => node.children.iter().all(|c| {
            matches!(c.path.get(node.path.len()), Some(Seg::Index(_)))
                || (c.reading.is_some() && c.path.len() == node.path.len())
        }),
        _ => false,
    }
}

fn children_lines(node: &Node, depth: usize, prefix: &str, out: &mut Vec<Field>) {
    let base = node.path.len();
    for (i, child) in node.children.iter().enumerate() {
        let label = join(prefix, &own_label(child, base));
        match &child.reading {
            Some(r) => out.push(field_line(
                child,
                r,
                &label,
                depth,
                context(&node.children, i),
            )),
            None => structure_lines(child, depth, label, out),
        }
    }
}

fn structure_lines(node: &Node, depth: usize, label: String, out: &mut Vec<Field>) {
    // A chain of structures with one structure each reads as one label ("value PROC").
    let (mut node, mut label) = (node, label);
    while let [only] = node.children.as_slice() {
        if only.reading.is_some() {
            break;
        }
        label = join(&label, &own_label(only, node.path.len()));
        node = only;
    }
    if is_flat(node) {
        for (i, f) in node.children.iter().enumerate() {
            if let Some(r) = &f.reading {
                out.push(field_line(f, r, &label, depth, context(&node.children, i)));
            }
        }
        return;
    }
    if is_transparent(node) {
        let prefix = match node.path.last() {
            Some(Seg::Name(_)) => label,
            _ => String::new(),
        };
        children_lines(node, depth, &prefix, out);
        return;
    }
    let mut text = label;
    if node.closed {
        text.push_str(&span(node.len));
    }
    out.push(Field {
        offset: node.offset,
        len: 0,
        depth,
        text,
    });
    children_lines(node, depth + 1, "", out);
}

/// The line of one field.
fn field_line(
    f: &Node,
    r: &Reading,
    label: &str,
    depth: usize,
    (sized, tagged): (bool, Option<DataType>),
) -> Field {
    let value_label = if label.is_empty() { "value" } else { label };
    let name = match f.path.last() {
        Some(Seg::Name(n)) => *n,
        _ => "",
    };
    let elem = f.path.iter().rev().find_map(|s| match s {
        Seg::Type(t) => Some(*t),
        _ => None,
    });
    let text = match r {
        Reading::Int(v, enc) => {
            let shown = show_int(*v, name, elem);
            let what = if sized {
                join(label, "size")
            } else {
                value_label.to_string()
            };
            let call_count = name == "count" && f.path.len() == 2;
            let note = if call_count && *v < 0 {
                "; negative (quirk U5: no values, or -50 for fixed-size types)"
            } else {
                ""
            };
            let width = match tagged {
                Some(t) => format!("{t} "),
                None if call_count => "INT32 ".into(),
                None => String::new(),
            };
            format!("{what}: {shown}  ({width}{enc}{note})")
        }
        Reading::Tag(t, role, enc) => {
            let what = match role {
                TagRole::CountTag => "count tag".to_string(),
                TagRole::CallType => "type tag".to_string(),
                TagRole::Described => join(label, "desc tag"),
                TagRole::IntTag => join(label, "int tag"),
                TagRole::Type => {
                    if label.is_empty() {
                        "type".into()
                    } else {
                        label.to_string()
                    }
                }
            };
            format!("{what}: {}  ({enc})", type_name(*t))
        }
        Reading::StringLength(len, enc) => {
            let chars = if *len == 0 { " = NULL" } else { "" };
            let detail = match len {
                l if *l <= 0 => String::new(),
                1 => "; NUL only".into(),
                2 => "; 1 char + NUL".into(),
                n => format!("; {} chars + NUL", n - 1),
            };
            format!("{value_label} length: {len}{chars}  (INT32 {enc}{detail})")
        }
        Reading::Text(t) => {
            let number = match elem {
                Some(DataType::FLOAT) => format!(" = {}  (\"%f\" text)", parse_strtof(t)),
                Some(DataType::DOUBLE) => format!(" = {}  (\"%f\" text)", parse_strtod(t)),
                _ => String::new(),
            };
            format!("{value_label}: {} + NUL{number}", quote(t))
        }
        Reading::Bytes => format!("{value_label}: {} bytes", f.len),
        Reading::Note(n) => {
            if label.is_empty() {
                format!("({n})")
            } else {
                format!("{label}: {n}")
            }
        }
    };
    Field {
        offset: f.offset,
        len: f.len,
        depth,
        text,
    }
}

/// An integer as its field means it: ranks and flags by name, enumerations by type.
fn show_int(v: i128, name: &str, ty: Option<DataType>) -> String {
    match (name, ty) {
        ("rank", _) | (_, Some(DataType::PROC_RANK)) => rank_show(v as u32),
        ("flags", _) | (_, Some(DataType::INFO_DIRECTIVES)) => info_flags(v as u32),
        ("", Some(DataType::ALLOC_DIRECTIVE)) => {
            format!("{v} ({})", alloc_directive_string(v as u8))
        }
        ("", Some(DataType::ALLOC_INHERIT)) => {
            format!("{v} ({})", alloc_inheritance_string(v as u8))
        }
        ("", Some(DataType::STATUS)) => format!("{v} = {}", Status(v as i32)),
        ("", Some(DataType::BOOL)) => match v {
            0 => "false".into(),
            1 => "true".into(),
            _ => format!("true (non-zero byte {v:02x})"),
        },
        _ => v.to_string(),
    }
}

fn rank_name(v: u32) -> Option<&'static str> {
    match v {
        0xffff_fffe => Some("PMIX_RANK_WILDCARD"),
        0xffff_ffff => Some("PMIX_RANK_UNDEF"),
        0xffff_fffd => Some("PMIX_RANK_LOCAL_NODE"),
        0xffff_fffb => Some("PMIX_RANK_LOCAL_PEERS"),
        0xffff_fffa => Some("PMIX_RANK_INVALID"),
        _ => None,
    }
}
fn rank_show(v: u32) -> String {
    match rank_name(v) {
        Some(n) => format!("{v} = {n}"),
        None => v.to_string(),
    }
}

/// INFO flags / INFO_DIRECTIVES with their bit names.
fn info_flags(v: u32) -> String {
    const BITS: [(u32, &str); 5] = [
        (0x1, "REQD"),
        (0x2, "ARRAY_END"),
        (0x4, "REQD_PROCESSED"),
        (0x8, "QUALIFIER"),
        (0x10, "PERSISTENT"),
    ];
    if v == 0 {
        return "0x0".into();
    }
    let mut names: Vec<String> = BITS
        .iter()
        .filter(|(b, _)| v & b != 0)
        .map(|(_, n)| n.to_string())
        .collect();
    let rest = v & !0x1f;
    if rest != 0 {
        names.push(format!("0x{rest:x}"));
    }
    format!("0x{v:x} = {}", names.join("|"))
}

/// A byte string as a quoted, escaped literal.
fn quote(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in s {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}

// ---- JSON -------------------------------------------------------------------------------

/// The dissection as JSON: the tree (each node with its path, offset, length and meaning),
/// the bytes consumed, the items decoded and the error, if any.
pub fn to_json(d: &Dissection, bytes: &[u8]) -> J {
    json!({
        "bytes": bytes.len(),
        "consumed": d.consumed,
        "items": d.items,
        "tree": d.items_tree.iter().map(|n| node_json(n, bytes)).collect::<Vec<_>>(),
        "error": d.error.as_ref().map(crate::error_json),
    })
}

fn int_json(v: i128) -> J {
    match i64::try_from(v) {
        Ok(x) => json!(x),
        Err(_) => json!(v as u64),
    }
}

fn node_json(n: &Node, bytes: &[u8]) -> J {
    let mut j = json!({
        "path": Path(&n.path).to_string(),
        "offset": n.offset,
        "length": n.len,
    });
    match &n.reading {
        None => {
            j["kind"] = json!("structure");
            j["closed"] = json!(n.closed);
            j["children"] = J::Array(n.children.iter().map(|c| node_json(c, bytes)).collect());
        }
        Some(r) => {
            let hex = bytes
                .get(n.offset..n.end())
                .map(pmix_oracle::hex::encode)
                .unwrap_or_default();
            j["hex"] = json!(hex);
            match r {
                Reading::Int(v, enc) => {
                    j["kind"] = json!("int");
                    j["value"] = int_json(*v);
                    j["encoding"] = json!(enc.to_string());
                }
                Reading::Tag(t, role, enc) => {
                    j["kind"] = json!("tag");
                    j["role"] = json!(format!("{role:?}"));
                    j["value"] = json!(t.name().map(str::to_string).unwrap_or(t.0.to_string()));
                    j["type_id"] = json!(t.0);
                    j["encoding"] = json!(enc.to_string());
                }
                Reading::StringLength(len, enc) => {
                    j["kind"] = json!("string_length");
                    j["value"] = json!(len);
                    j["encoding"] = json!(enc.to_string());
                }
                Reading::Text(t) => {
                    j["kind"] = json!("string");
                    j["value"] = json!(String::from_utf8_lossy(t));
                }
                Reading::Bytes => j["kind"] = json!("bytes"),
                Reading::Note(note) => {
                    j["kind"] = json!("note");
                    j["value"] = json!(note);
                }
            }
        }
    }
    j
}

// ---- rendering -------------------------------------------------------------------------

/// Bytes shown per row.
const ROW: usize = 8;
/// Rows shown for one field before eliding (unless `full`).
const MAX_ROWS: usize = 4;

/// Render a dissection as text: a header, one line per field (continuation rows for long
/// fields), then the outcome.
pub fn render(d: &Dissection, bytes: &[u8], full: bool) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:>6}  {:<w$}  field\n",
        "offset",
        "bytes",
        w = ROW * 3 - 1
    ));
    for f in &d.fields {
        let indent = "  ".repeat(f.depth);
        let span = &bytes[f.offset..f.offset + f.len];
        let mut rows = span.chunks(ROW);
        let first = rows.next().map(hexrow).unwrap_or_default();
        out.push_str(&format!(
            "{:>6}  {:<w$}  {indent}{}\n",
            f.offset,
            first,
            f.text,
            w = ROW * 3 - 1
        ));
        let rest: Vec<&[u8]> = rows.collect();
        let shown = if full || rest.len() < MAX_ROWS {
            rest.len()
        } else {
            MAX_ROWS - 1
        };
        for (i, row) in rest.iter().take(shown).enumerate() {
            out.push_str(&format!(
                "{:>6}  {}\n",
                f.offset + (i + 1) * ROW,
                hexrow(row)
            ));
        }
        if shown < rest.len() {
            let more = f.len - (shown + 1) * ROW;
            out.push_str(&format!(
                "{:>6}  ... {more} more bytes\n",
                f.offset + (shown + 1) * ROW
            ));
        }
    }
    match &d.error {
        None => {
            out.push_str(&format!(
                "{:>6}  end: {} of {} bytes consumed, {} item(s)\n",
                d.consumed,
                d.consumed,
                bytes.len(),
                d.items
            ));
            if d.consumed < bytes.len() {
                out.push_str(&format!(
                    "{:>6}  {} trailing byte(s) not consumed:\n",
                    d.consumed,
                    bytes.len() - d.consumed
                ));
                for (i, row) in bytes[d.consumed..].chunks(ROW).enumerate() {
                    out.push_str(&format!("{:>6}  {}\n", d.consumed + i * ROW, hexrow(row)));
                }
            }
        }
        Some(e) => {
            let at = e.offset.min(bytes.len());
            out.push_str(&format!(
                "{:>6}  ^^^ decoding fails here: {}\n",
                e.offset,
                crate::error_line(e)
            ));
            if at < bytes.len() {
                out.push_str(&format!(
                    "{:>6}  {} byte(s) from the failing field on:\n",
                    at,
                    bytes.len() - at
                ));
                let rows: Vec<&[u8]> = bytes[at..].chunks(ROW).collect();
                let shown = if full {
                    rows.len()
                } else {
                    rows.len().min(MAX_ROWS)
                };
                for (i, row) in rows.iter().take(shown).enumerate() {
                    out.push_str(&format!("{:>6}  {}\n", at + i * ROW, hexrow(row)));
                }
                if shown < rows.len() {
                    out.push_str(&format!(
                        "{:>6}  ... {} more bytes\n",
                        at + shown * ROW,
                        bytes.len() - at - shown * ROW
                    ));
                }
            }
        }
    }
    out
}

fn hexrow(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}
