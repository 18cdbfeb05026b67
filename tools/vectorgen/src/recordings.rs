//! The OpenPMIx master recordings (`vectors/recordings/`) and their description syntax.

use super::files::Options;
use super::DIR_MASTER;
use pmix_codec::json;
use pmix_codec::*;
use serde_json::Value as J;
use std::result::Result;

/// One line of a master recording.
#[derive(Clone, Debug)]
pub struct Recording {
    /// `v61` etc.
    pub comp: Component,
    /// Buffer kind.
    pub kind: BufferKind,
    /// The recording's own description.
    pub desc: String,
    /// The pack call.
    pub item: Item,
    /// `Ok(bytes)` or `Err(status)`.
    pub result: Result<Vec<u8>, i32>,
}

/// Parse `alloc-inherit.tsv` (format: the shared README).
pub fn parse_recordings(text: &str) -> Result<Vec<Recording>, String> {
    let mut out = vec![];
    let mut cur: Option<(Component, BufferKind)> = None;
    for (ln, line) in text.lines().enumerate() {
        let err = |m: String| format!("line {}: {m}", ln + 1);
        if let Some(h) = line.strip_prefix("## ") {
            let mut comp = None;
            let mut kind = None;
            for kv in h.split_whitespace() {
                match kv.split_once('=') {
                    Some(("component", c)) => comp = Some(c.parse::<Component>().map_err(err)?),
                    Some(("buffer", b)) => kind = Some(b.parse::<BufferKind>().map_err(err)?),
                    _ => {}
                }
            }
            cur = Some((
                comp.ok_or_else(|| err("no component".into()))?,
                kind.ok_or_else(|| err("no buffer".into()))?,
            ));
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (comp, kind) = cur.ok_or_else(|| err("record before a section header".into()))?;
        let (desc, res) = line.split_once('\t').ok_or_else(|| err("no tab".into()))?;
        let item = parse_desc(desc).map_err(|e| err(format!("{desc}: {e}")))?;
        let mut r = res.split_whitespace();
        let result = match r.next() {
            Some("ok") => Ok(pmix_oracle::hex::decode(r.next().unwrap_or(""))
                .ok_or_else(|| err("bad hex".into()))?),
            Some("err") => Err(r
                .next()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| err("bad status".into()))?),
            _ => return Err(err("expected ok or err".into())),
        };
        out.push(Recording {
            comp,
            kind,
            desc: desc.to_string(),
            item,
            result,
        });
    }
    Ok(out)
}

/// The recordings' description syntax: `TYPE v`, `TYPE [v v]`, `VALUE T v`, `INFO {"key" T v}`,
/// `INFO [{...} ...]`, `PROC {"ns" 3}`, `VALUE DATA_ARRAY {T [v v]}`.
fn parse_desc(desc: &str) -> Result<Item, String> {
    let toks = tokenize(desc);
    let mut p = 0;
    let ty = DataType::from_name(toks.first().ok_or("empty")?).ok_or("unknown type")?;
    p += 1;
    let values = desc_list(&toks, &mut p, ty)?;
    if p != toks.len() {
        return Err(format!("trailing tokens after {p}"));
    }
    Ok(Item::new(ty, values))
}

fn tokenize(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut in_q = false;
    for c in s.chars() {
        match c {
            '"' => {
                cur.push(c);
                in_q = !in_q;
            }
            ' ' if !in_q => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            '[' | ']' | '{' | '}' if !in_q => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                out.push(c.to_string());
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn desc_list(t: &[String], p: &mut usize, ty: DataType) -> Result<Vec<Value>, String> {
    if t.get(*p).map(String::as_str) == Some("[") {
        *p += 1;
        let mut v = vec![];
        while t.get(*p).map(String::as_str) != Some("]") {
            if *p >= t.len() {
                return Err("unclosed [".into());
            }
            v.push(desc_value(t, p, ty)?);
        }
        *p += 1;
        Ok(v)
    } else {
        Ok(vec![desc_value(t, p, ty)?])
    }
}

fn desc_value(t: &[String], p: &mut usize, ty: DataType) -> Result<Value, String> {
    let next = |p: &mut usize| -> Result<String, String> {
        let s = t.get(*p).cloned().ok_or("unexpected end")?;
        *p += 1;
        Ok(s)
    };
    let eat = |p: &mut usize, c: &str| -> Result<(), String> {
        if t.get(*p).map(String::as_str) == Some(c) {
            *p += 1;
            Ok(())
        } else {
            Err(format!("expected {c}"))
        }
    };
    let unq = |s: String| s.trim_matches('"').to_string();
    Ok(match ty {
        DataType::VALUE => {
            let vt = DataType::from_name(&next(p)?).ok_or("unknown value type")?;
            Value::Value(Box::new(desc_value(t, p, vt)?))
        }
        DataType::INFO => {
            eat(p, "{")?;
            let key = unq(next(p)?);
            let vt = DataType::from_name(&next(p)?).ok_or("unknown info value type")?;
            let v = desc_value(t, p, vt)?;
            eat(p, "}")?;
            Value::info(&key, v)
        }
        DataType::PROC => {
            eat(p, "{")?;
            let ns = unq(next(p)?);
            let rank = next(p)?.parse().map_err(|_| "bad rank")?;
            eat(p, "}")?;
            Value::proc(&ns, rank)
        }
        DataType::DATA_ARRAY => {
            eat(p, "{")?;
            let et = DataType::from_name(&next(p)?).ok_or("unknown element type")?;
            let vals = desc_list(t, p, et)?;
            eat(p, "}")?;
            Value::array(et, vals)
        }
        DataType::STRING => Value::string(&unq(next(p)?)),
        DataType::BOOL => Value::Bool(next(p)? == "true"),
        _ => {
            let w = next(p)?;
            let j: J = serde_json::from_str(&w).map_err(|_| format!("bad number {w}"))?;
            json::value_from_json(ty, &j)?
        }
    })
}

/// The master recordings named by `opts` (`vectors/recordings/...`).
pub(super) fn read_recordings(opts: &Options) -> Result<Vec<Recording>, String> {
    let rec_path = opts.shared_dir.join(DIR_MASTER).join("alloc-inherit.tsv");
    let rec_text = std::fs::read_to_string(&rec_path).map_err(|e| {
        format!(
            "cannot read the master recordings {}: {e}",
            rec_path.display()
        )
    })?;
    parse_recordings(&rec_text).map_err(|e| format!("{}: {e}", rec_path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_parse() {
        let it = parse_desc("INFO [{\"a.b\" UINT64 16} {\"c\" BOOL false}]").unwrap();
        assert_eq!(it.values.len(), 2);
        let it = parse_desc("VALUE DATA_ARRAY {ALLOC_INHERIT [2 4]}").unwrap();
        assert_eq!(
            it.values,
            [Value::Value(Box::new(Value::array(
                DataType::ALLOC_INHERIT,
                vec![Value::AllocInherit(2), Value::AllocInherit(4)]
            )))]
        );
        assert_eq!(
            parse_desc("PROC {\"ns\" 3}").unwrap().values,
            [Value::proc("ns", 3)]
        );
    }
}
