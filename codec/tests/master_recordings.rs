//! Replays the bytes recorded from OpenPMIx master (vectors/recordings) through our codec:
//! every `ok` line must encode byte for byte and decode back to the same values; every
//! `err` line must fail with the same status.

use pmix_codec::attrs;
use pmix_codec::*;
use std::path::PathBuf;

/// The master recordings, kept in the repository (`vectors/recordings`).
fn shared_vectors() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../vectors/recordings/openpmix-master-494e9d9d");
    assert!(
        p.is_dir(),
        "MISSING: {} (part of the repository)",
        p.display()
    );
    p
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A tiny parser for the recordings' description syntax.
struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i] == b' ' {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> u8 {
        self.ws();
        *self.s.get(self.i).unwrap_or(&0)
    }
    fn word(&mut self) -> String {
        self.ws();
        let st = self.i;
        while self.i < self.s.len() && !b" []{}".contains(&self.s[self.i]) {
            self.i += 1;
        }
        String::from_utf8(self.s[st..self.i].to_vec()).unwrap()
    }
    fn eat(&mut self, c: u8) {
        assert_eq!(self.peek(), c, "expected {:?}", c as char);
        self.i += 1;
    }
    fn scalar(&mut self, ty: DataType) -> Value {
        match ty {
            DataType::INFO => {
                self.eat(b'{');
                let key = self.word();
                let key = key.trim_matches('"').to_string();
                let vt = DataType::from_name(&self.word()).unwrap();
                let v = self.scalar(vt);
                self.eat(b'}');
                Value::info(&key, v)
            }
            DataType::PROC => {
                self.eat(b'{');
                let ns = self.word();
                let rank = self.word().parse().unwrap();
                self.eat(b'}');
                Value::proc(ns.trim_matches('"'), rank)
            }
            DataType::DATA_ARRAY => {
                self.eat(b'{');
                let et = DataType::from_name(&self.word()).unwrap();
                let vals = self.list(et);
                self.eat(b'}');
                Value::array(et, vals)
            }
            DataType::VALUE => {
                let t = DataType::from_name(&self.word()).unwrap();
                Value::Value(Box::new(self.scalar(t)))
            }
            _ => {
                let w = self.word();
                match ty {
                    DataType::ALLOC_INHERIT => Value::AllocInherit(w.parse().unwrap()),
                    DataType::UINT32 => Value::Uint32(w.parse().unwrap()),
                    DataType::UINT64 => Value::Uint64(w.parse().unwrap()),
                    DataType::BOOL => Value::Bool(w == "true"),
                    DataType::STRING => Value::string(w.trim_matches('"')),
                    other => panic!("recording parser: no syntax for {other}"),
                }
            }
        }
    }
    fn list(&mut self, ty: DataType) -> Vec<Value> {
        if self.peek() == b'[' {
            self.eat(b'[');
            let mut v = Vec::new();
            while self.peek() != b']' {
                v.push(self.scalar(ty));
            }
            self.eat(b']');
            v
        } else {
            vec![self.scalar(ty)]
        }
    }
}

fn parse_item(desc: &str) -> Item {
    let mut p = P {
        s: desc.as_bytes(),
        i: 0,
    };
    let ty = DataType::from_name(&p.word()).unwrap();
    // VALUE values are written unwrapped in the recordings: "VALUE ALLOC_INHERIT 4".
    let values = p.list(ty);
    Item::new(ty, values)
}

#[test]
fn master_alloc_inherit_recordings_match() {
    let text = std::fs::read_to_string(shared_vectors().join("alloc-inherit.tsv")).unwrap();
    let (mut codec, mut checked) = (None::<Codec>, 0);
    let mut per_section = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            let mut comp = None;
            let mut kind = None;
            for kv in h.split_whitespace() {
                if let Some(c) = kv.strip_prefix("component=") {
                    comp = Some(c.parse::<Component>().unwrap());
                }
                if let Some(b) = kv.strip_prefix("buffer=") {
                    kind = Some(b.parse::<BufferKind>().unwrap());
                }
            }
            codec = Some(Codec::new(comp.unwrap(), kind.unwrap()));
            per_section.push((h.to_string(), 0));
            continue;
        }
        let Some((desc, result)) = line.split_once('\t') else {
            continue;
        };
        if desc == "#string" {
            let (v, s) = result.split_once(' ').unwrap();
            assert_eq!(attrs::alloc_inheritance_string(v.parse().unwrap()), s);
            continue;
        }
        if desc == "#keys" {
            for kv in result.split_whitespace() {
                let (name, key) = kv.split_once('=').unwrap();
                assert_eq!(
                    attrs::attribute(name)
                        .unwrap_or_else(|| panic!("{name} missing"))
                        .key,
                    key
                );
            }
            continue;
        }
        let codec = codec.unwrap();
        let item = parse_item(desc);
        let enc = codec.encode(std::slice::from_ref(&item));
        if let Some(h) = result.strip_prefix("ok ") {
            let want = hex(h);
            assert_eq!(enc.as_deref(), Ok(&want[..]), "{codec:?} {desc}");
            let back = codec
                .decode(&want, &[item.ty])
                .unwrap_or_else(|e| panic!("{codec:?} {desc}: {e}"));
            assert_eq!(back, vec![item.clone()], "{codec:?} {desc}");
        } else {
            let status: i32 = result.split_whitespace().nth(1).unwrap().parse().unwrap();
            let e = enc.expect_err(desc);
            assert_eq!(e.status.0, status, "{codec:?} {desc}: {e}");
        }
        checked += 1;
        per_section.last_mut().unwrap().1 += 1;
    }
    for (s, n) in &per_section {
        println!("master recordings [{s}]: {n} cases matched");
    }
    assert!(checked >= 60, "only {checked} recorded cases found");
}
