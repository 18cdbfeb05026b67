//! `pmix-wire decode`: bytes to values (`-o json`, `-o tree`) or to a view's index
//! (`-o index`).
//!
//! Memory: the values are decoded once, by the codec, which refuses a message whose values
//! do not fit with `PMIX_ERR_NOMEM` (its allocations are fallible). Everything after that is
//! streamed: each value is turned into JSON or tree lines on its own and written at once, so
//! the output never holds a second copy of the message (before, the JSON document of a 64 MiB
//! message was built whole and the process aborted under an address-space limit).

use crate::{input, need_types, tree, DecodeArgs, DecodeOutput, Failure, EXIT_OK};
use pmix_codec::json::{item_to_json, value_to_json};
use pmix_codec::observe::{Field as Event, Observer};
use pmix_codec::{Codec, DataType, Item};
use std::io::{BufWriter, Read, Write};

/// Where the decoder's last field ends: what it consumed (for the trailing-bytes warning),
/// heard from the decode itself, without keeping anything else.
#[derive(Default)]
struct End(usize);

impl Observer for End {
    fn field(&mut self, f: &Event<'_>) {
        self.0 = self.0.max(f.offset + f.len);
    }
}

pub(super) fn decode(
    a: DecodeArgs,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Failure> {
    let codec = a.codec.codec();
    need_types(&codec, &a.types)?;
    let bytes = input::bytes(&a.input.hex, a.input.file.as_ref(), a.input.format, stdin)?;
    if a.output == DecodeOutput::Index {
        return index(&codec, &a, bytes, out, err);
    }
    let types = (!a.types.is_empty()).then_some(a.types.as_slice());
    let mut end = End::default();
    // The observed decode is the plain decode (same values, same errors), telling where
    // each field ends as it goes.
    let items = codec
        .decode_observed(&bytes, types, &mut end)
        .map_err(Failure::Pmix)?;
    let consumed = end.0;
    let mut out = BufWriter::with_capacity(1 << 16, out);
    if a.output == DecodeOutput::Tree {
        tree::write(&mut out, &items)?;
    } else {
        write_json(&mut out, &items, !(a.compact || a.json))?;
    }
    out.flush()?;
    // The codec ignores what follows the last call; say so.
    if consumed < bytes.len() {
        let n = bytes.len() - consumed;
        let _ = writeln!(
            err,
            "warning: {n} trailing byte(s) from byte {consumed} were not decoded"
        );
    }
    Ok(EXIT_OK)
}

/// The items as the vectors' JSON (`items_to_json`), written value by value: the same text
/// `serde_json::to_string{,_pretty}` gives for the whole document, without building it.
pub fn write_json(out: &mut dyn Write, items: &[Item], pretty: bool) -> std::io::Result<()> {
    let text = |j: &serde_json::Value| {
        if pretty {
            serde_json::to_string_pretty(j)
        } else {
            serde_json::to_string(j)
        }
        .unwrap_or_default()
    };
    if items.is_empty() {
        return writeln!(out, "[]");
    }
    out.write_all(if pretty { b"[\n" } else { b"[" })?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.write_all(if pretty { b",\n" } else { b"," })?;
        }
        // The item's own keys, from the one function that writes them.
        let head = item_to_json(&Item::new(item.ty, Vec::new()));
        let ty = text(&head["type"]);
        if pretty {
            write!(out, "  {{\n    \"type\": {ty},\n    \"values\": [")?;
        } else {
            write!(out, "{{\"type\":{ty},\"values\":[")?;
        }
        for (k, v) in item.values.iter().enumerate() {
            if k > 0 {
                out.write_all(b",")?;
            }
            let s = text(&value_to_json(v));
            if pretty {
                out.write_all(b"\n      ")?;
                out.write_all(s.replace('\n', "\n      ").as_bytes())?;
            } else {
                out.write_all(s.as_bytes())?;
            }
        }
        if pretty && !item.values.is_empty() {
            out.write_all(b"\n    ")?;
        }
        out.write_all(if pretty { b"]\n  }" } else { b"]}" })?;
    }
    out.write_all(if pretty { b"\n]\n" } else { b"]\n" })
}

/// `decode -o index`: the calls of a view (`Codec::view`), no value decoded.
fn index(
    codec: &Codec,
    a: &DecodeArgs,
    bytes: Vec<u8>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Failure> {
    if a.types.is_empty() {
        return Err(Failure::Usage(
            "-o index needs the calls' types: pass --types (e.g. --types INFO)".into(),
        ));
    }
    let input = pmix_codec::Bytes::from(bytes);
    let calls: Vec<(DataType, usize)> = a.types.iter().map(|t| (*t, usize::MAX)).collect();
    let view = codec.view(&input, &calls).map_err(Failure::Pmix)?;
    let rows: Vec<serde_json::Value> = view
        .calls()
        .map(|c| {
            // the largest value by its wire bytes, the first of equals
            let largest = (0..c.len())
                .filter_map(|i| c.value_range(i).map(|r| (i, r.len())))
                .fold(None, |best: Option<(usize, usize)>, (i, n)| match best {
                    Some((_, m)) if m >= n => best,
                    _ => Some((i, n)),
                });
            serde_json::json!({
                "type": c.ty().name().map_or_else(|| c.ty().0.to_string(), str::to_string),
                "count": c.len(),
                "start": c.range().start,
                "end": c.range().end,
                "largest": largest.map(|(i, n)| serde_json::json!({"index": i, "bytes": n})),
            })
        })
        .collect();
    let j = serde_json::Value::Array(rows);
    let text = if a.compact {
        serde_json::to_string(&j)
    } else {
        serde_json::to_string_pretty(&j)
    }
    .unwrap_or_default();
    writeln!(out, "{text}")?;
    if view.consumed() < input.len() {
        let _ = writeln!(
            err,
            "warning: {} trailing byte(s) from byte {} were not decoded",
            input.len() - view.consumed(),
            view.consumed()
        );
    }
    Ok(EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmix_codec::json::items_to_json;
    use pmix_codec::Value;

    /// The streamed JSON is byte for byte what serde_json prints for the whole document.
    #[test]
    fn streamed_json_is_serde_jsons_text() {
        let cases: Vec<Vec<Item>> = vec![
            vec![],
            vec![Item::new(DataType::UINT32, vec![])],
            vec![
                Item::new(DataType::UINT32, vec![Value::Uint32(1), Value::Uint32(2)]),
                Item::one(Value::proc("ns", 3)),
                Item::one(Value::String(Some("a\nb".into()))),
            ],
        ];
        for items in cases {
            for pretty in [true, false] {
                let mut got = Vec::new();
                write_json(&mut got, &items, pretty).unwrap();
                let j = items_to_json(&items);
                let want = if pretty {
                    serde_json::to_string_pretty(&j)
                } else {
                    serde_json::to_string(&j)
                }
                .unwrap()
                    + "\n";
                assert_eq!(String::from_utf8(got).unwrap(), want, "pretty {pretty}");
            }
        }
    }
}
