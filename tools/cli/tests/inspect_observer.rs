//! `pmix-wire inspect` is the codec's decoder narrated (`pmix_codec::observe`): these are the
//! guarantees the old agreement test gave for a second walker, now properties of the one
//! decoder, checked over every golden vector in `vectors/` (and every truncation of a
//! sample of them), in the vector's own component, buffer kind and release, read like the C
//! receiver and as written:
//!
//! - the dissection ends where decoding ends: its fields cover the bytes from 0 to the
//!   decoder's stopping point, back to back, without gap or overlap;
//! - it fails where decoding fails: the same error (status, offset, item, type, reason and
//!   field path), and no field reaches past the failing byte (unless the failure points
//!   back at a field read before it, such as a call's count);
//! - observing changes nothing: the observed decode returns the plain decode's items;
//! - structures nest: every field lies inside its structure, and on success every
//!   structure was closed.

use pmix_codec::observe::{Field, Observer, Path, Seg};
use pmix_codec::vectors::VectorFile;
use pmix_codec::{json, BufferKind, Codec, DataType, DecodeOptions, Error};
use pmix_conformance::vectors::{default_dir, load_dir};
use pmix_wire::inspect::{dissect, Node};

/// Every golden vector file of the repository, as the conformance runner loads them.
fn vector_files() -> Vec<(String, VectorFile)> {
    let sets = load_dir(&default_dir()).expect("the vectors load");
    assert!(sets.len() > 50, "only {} vector files", sets.len());
    sets.into_iter().map(|s| (s.label, s.file)).collect()
}

/// Leaf fields with bytes, in tree order.
fn leaves<'a>(nodes: &'a [Node], out: &mut Vec<&'a Node>) {
    for n in nodes {
        match n.reading {
            Some(_) if n.len > 0 => out.push(n),
            Some(_) => {}
            None => leaves(&n.children, out),
        }
    }
}

/// Every node lies inside its parent; `closed` structures when `all_closed`.
fn nested(n: &Node, all_closed: bool, what: &str) {
    if n.reading.is_none() {
        assert!(
            !all_closed || n.closed,
            "{what}: {} left open",
            Path(&n.path)
        );
        for c in &n.children {
            assert!(
                c.offset >= n.offset && c.offset + c.len <= n.offset + n.len,
                "{what}: {} ({}+{}) outside {} ({}+{})",
                Path(&c.path),
                c.offset,
                c.len,
                Path(&n.path),
                n.offset,
                n.len
            );
            assert!(
                c.path.starts_with(&n.path),
                "{what}: {} not under {}",
                Path(&c.path),
                Path(&n.path)
            );
            nested(c, all_closed, what);
        }
    }
}

/// Where the decoder stops after `types` (its own cursor, through the unpacker).
fn decoder_end(codec: &Codec, bytes: &[u8], types: &[DataType]) -> usize {
    let mut u = codec.unpacker(bytes);
    for t in types {
        u.unpack(*t, usize::MAX).expect("decodes");
    }
    u.offset()
}

/// An observer that counts what it hears and keeps the failure's path.
#[derive(Default)]
struct Count {
    fields: usize,
    failed: Option<String>,
}
impl Observer for Count {
    fn field(&mut self, _: &Field<'_>) {
        self.fields += 1;
    }
    fn fail(&mut self, _: &Error, path: Path<'_>) {
        self.failed = Some(path.to_string());
    }
}

fn check(codec: &Codec, bytes: &[u8], types: &[DataType], what: &str) {
    let plain = codec.decode(bytes, types);
    let mut count = Count::default();
    let observed = codec.decode_observed(bytes, Some(types), &mut count);
    assert_eq!(
        format!("{observed:?}"),
        format!("{plain:?}"),
        "{what}: observing changed the result"
    );
    let d = dissect(codec, bytes, Some(types));
    let mut fields = Vec::new();
    leaves(&d.items_tree, &mut fields);
    let mut at = 0;
    for f in &fields {
        assert_eq!(
            f.offset,
            at,
            "{what}: field {} starts at {} after a field ending at {at}",
            Path(&f.path),
            f.offset
        );
        at = f.offset + f.len;
    }
    match &plain {
        Ok(items) => {
            assert!(d.error.is_none(), "{what}: {:?}", d.error);
            assert_eq!(d.items, items.len(), "{what}");
            let end = decoder_end(codec, bytes, types);
            assert_eq!(
                at, end,
                "{what}: the fields end at {at}, the decoder at {end}"
            );
            assert_eq!(d.consumed, end, "{what}");
            assert!(count.failed.is_none(), "{what}");
            for n in &d.items_tree {
                nested(n, true, what);
            }
        }
        Err(e) => {
            assert_eq!(d.error.as_ref(), Some(e), "{what}");
            // No field reaches past the failing byte, unless the failure points back at a
            // field already read (a call's count, quirks U5/U6).
            assert!(
                at <= e.offset || fields.iter().any(|f| f.offset == e.offset),
                "{what}: a field reaches byte {at}, past the failure at {}",
                e.offset
            );
            assert_eq!(
                count.failed.as_deref(),
                Some(e.path.as_str()),
                "{what}: fail event path"
            );
            for n in &d.items_tree {
                nested(n, false, what);
            }
        }
    }
}

/// A fully described buffer read without types (each call's type discovered from its
/// tags): the dissection's verdict is `decode_described`'s, and its fields end where the
/// buffer ends or before the failing byte.
fn discovered(codec: &Codec, bytes: &[u8], what: &str) {
    let plain = codec.decode_described(bytes);
    let d = dissect(codec, bytes, None);
    let mut fields = Vec::new();
    leaves(&d.items_tree, &mut fields);
    let end = fields.last().map(|f| f.offset + f.len).unwrap_or(0);
    match plain {
        Ok(items) => {
            assert!(d.error.is_none(), "{what} (discovered): {:?}", d.error);
            assert_eq!(d.items, items.len(), "{what} (discovered)");
            assert_eq!(end, bytes.len(), "{what} (discovered)");
        }
        Err(e) => {
            assert_eq!(d.error.as_ref(), Some(&e), "{what} (discovered)");
        }
    }
}

#[test]
fn the_dissection_ends_where_decoding_ends_and_fails_where_it_fails() {
    let mut checked = 0usize;
    let mut truncations = 0usize;
    let mut failures = 0usize;
    for (path, file) in vector_files() {
        let base = file.codec().unwrap_or_else(|e| panic!("{path}: {e}"));
        for as_written in [false, true] {
            let mut codec = base;
            codec.options = DecodeOptions {
                datatype_as_written: false,
                as_written,
            };
            for (k, v) in file.tests.iter().enumerate() {
                let Ok(items) = json::items_from_json(&v.items) else {
                    continue;
                };
                let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
                let bytes = pmix_oracle::hex::decode(&v.wire).expect("hex");
                let what = format!("{path} #{} as_written={as_written}", v.id);
                check(&codec, &bytes, &types, &what);
                if codec.kind == BufferKind::FullyDescribed {
                    discovered(&codec, &bytes, &what);
                }
                checked += 1;
                if codec.decode(&bytes, &types).is_err() {
                    failures += 1;
                }
                // Every truncation of every 16th vector read like the receiver.
                if !as_written && k % 16 == 0 {
                    // Every byte of short vectors; long ones (the edge families' 16 KiB
                    // strings) at most ~512 cuts plus their last 16 bytes, so the cost stays
                    // linear in the vector, not quadratic.
                    let stride = if cfg!(debug_assertions) { 5 } else { 1 };
                    let step = stride.max(bytes.len().div_ceil(512));
                    let tail = bytes.len().saturating_sub(16)..bytes.len();
                    for cut in (0..bytes.len()).step_by(step).chain(tail) {
                        check(&codec, &bytes[..cut], &types, &format!("{what} cut {cut}"));
                        truncations += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100_000, "{checked} vectors checked");
    assert!(failures > 1_000, "{failures} failing decodes among them");
    assert!(truncations > 10_000, "{truncations} truncations");
}

#[test]
fn error_paths_name_the_field() {
    use pmix_codec::{BufferKind, Component, Item, Value};
    let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
    let items = [Item::new(
        DataType::INFO,
        (0..4)
            .map(|i| {
                Value::Info(Box::new(pmix_codec::Info::new(
                    &format!("k{i}"),
                    Value::proc("ns", 7),
                )))
            })
            .collect(),
    )];
    let bytes = codec.encode(&items).unwrap();
    // Cut inside the last PROC's rank (its last byte is the rank).
    let e = codec
        .decode(&bytes[..bytes.len() - 1], &[DataType::INFO])
        .unwrap_err();
    assert_eq!(e.path, "INFO[3].value.PROC.rank");
    assert!(
        e.to_string().contains(" in INFO[3].value.PROC.rank: "),
        "{e}"
    );
    let d = dissect(&codec, &bytes, Some(&[DataType::INFO]));
    let mut fields = Vec::new();
    leaves(&d.items_tree, &mut fields);
    let last = fields.last().unwrap();
    assert_eq!(Path(&last.path).to_string(), "INFO[3].value.PROC.rank");
    assert!(matches!(
        last.path[..],
        [Seg::Type(DataType::INFO), Seg::Index(3), ..]
    ));
}
