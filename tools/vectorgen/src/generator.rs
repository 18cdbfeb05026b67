//! The per-file generator: asks the judge about each input and records the vector, and
//! builds the wire pieces of crafted inputs.

use super::draft::{
    cut_inside_v12_size_tag, items_key, quirks_of, same_items, typeless_darray_before_others,
    types_only, Draft,
};
use super::judge::{codec_pack, codec_unpack, Judge, Packed, Unpacked};
use super::progress::Progress;
use pmix_codec::json;
use pmix_codec::quirks;
use pmix_codec::vectors::{Outcome, Phase};
use pmix_codec::wire::{put_flex, zigzag};
use pmix_codec::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};

pub(super) struct Gen<'a> {
    pub(super) judge: &'a mut dyn Judge,
    pub(super) comp: Component,
    pub(super) kind: BufferKind,
    pub(super) rel: Release,
    /// Flags added to every vector this generator makes (e.g. `Derived`, `Computed`).
    pub(super) base_flags: Vec<&'static str>,
    pub(super) out: Vec<Draft>,
    pub(super) comments: HashSet<String>,
    pub(super) inputs: HashSet<String>,
    pub(super) valid_keys: HashSet<String>,
    pub(super) skipped: BTreeMap<String, usize>,
    pub(super) progress: Option<&'a mut Progress>,
}

impl<'a> Gen<'a> {
    pub(super) fn new(
        judge: &'a mut dyn Judge,
        comp: Component,
        kind: BufferKind,
        rel: Release,
    ) -> Self {
        Gen {
            judge,
            comp,
            kind,
            rel,
            base_flags: vec![],
            out: vec![],
            comments: HashSet::new(),
            inputs: HashSet::new(),
            valid_keys: HashSet::new(),
            skipped: BTreeMap::new(),
            progress: None,
        }
    }

    pub(super) fn codec(&self) -> Codec {
        Codec::new(self.comp, self.kind).with_release(self.rel)
    }

    pub(super) fn skip(&mut self, why: &str) {
        self.skip_detail(why, "");
    }

    /// Count a skipped input under `why`; `detail` goes to stderr with `PMIX_VECTORS_DEBUG=1`.
    pub(super) fn skip_detail(&mut self, why: &str, detail: &str) {
        if std::env::var_os("PMIX_VECTORS_DEBUG").is_some() {
            eprintln!(
                "skip {} {} {}: {why}: {detail}",
                self.rel, self.comp, self.kind
            );
        }
        *self.skipped.entry(why.to_string()).or_default() += 1;
    }

    pub(super) fn tick(&mut self) {
        let n = self.judge.requests();
        if let Some(p) = self.progress.as_deref_mut() {
            p.tick(n);
        }
    }

    pub(super) fn push(&mut self, mut d: Draft) {
        for f in &self.base_flags {
            d.flags.insert(f.to_string());
        }
        let mut c = d.comment.clone();
        let mut k = 2;
        while self.comments.contains(&c) {
            c = format!("{} #{k}", d.comment);
            k += 1;
        }
        self.comments.insert(c.clone());
        d.comment = c;
        if matches!(d.result, Outcome::Valid | Outcome::Acceptable) {
            self.valid_keys.insert(items_key(&d.items));
        }
        self.out.push(d);
    }

    /// A pack call list: valid (the judge packs and unpacks it), or invalid at encode, or
    /// invalid at decode when the library cannot read its own bytes.
    pub(super) fn pack_case(
        &mut self,
        name: &str,
        items: &[Item],
        flags: &[&str],
    ) -> Option<Vec<u8>> {
        self.tick();
        if self.comp == Component::V12
            && items
                .iter()
                .any(|i| i.ty == DataType::DATA_TYPE && i.values.len() > 1)
        {
            // v12 packs DATA_TYPE as 4-byte ints read from a 2-byte array: stray memory on the wire.
            self.skip_detail(
                "v12 DATA_TYPE with several values (the C packer reads stray memory)",
                name,
            );
            return None;
        }
        if self.valid_keys.contains(&items_key(items)) {
            self.skip_detail("duplicate pack call list", name);
            return None;
        }
        if typeless_darray_before_others(items)
            && self.comp.family() != Family::Legacy20
            && self.comp.family() != Family::Legacy12
        {
            let prof = self.rel.profile();
            if !prof.darray_undef_has_size {
                // 7.0 returns after the typeless array's tag and drops the rest (quirk R2).
                self.skip_detail(
                    "typeless DATA_ARRAY before others: the packer drops the rest (quirk R2)",
                    name,
                );
                return None;
            }
            if self.rel == Release::OpenPmix6_1 {
                // 6.1 reads every later array as UNDEF without reading it (quirk C6).
                self.skip_detail(
                    "typeless DATA_ARRAY before others: the unpacker reads garbage (quirk C6)",
                    name,
                );
                return None;
            }
        }
        let fl = |extra: &[&str]| -> BTreeSet<String> {
            flags.iter().chain(extra).map(|s| s.to_string()).collect()
        };
        let types: Vec<DataType> = items.iter().map(|i| i.ty).collect();
        let min_cap = items
            .iter()
            .map(|i| i.values.len())
            .max()
            .unwrap_or(0)
            .max(1);
        let packed = match self.judge.pack(self.comp, self.kind, items) {
            Ok(p) => p,
            Err(e) => panic!("the oracle died: {e}"),
        };
        match packed {
            Packed::Ok(bytes) => {
                let unpacked = self
                    .judge
                    .unpack(self.comp, self.kind, &bytes, &types, min_cap)
                    .unwrap_or_else(|e| panic!("the oracle died: {e}"));
                match unpacked {
                    Unpacked::Ok(got) => {
                        let lossy = !same_items(&got, items);
                        let (q, acceptable) = quirks_of(self.comp, self.rel, items, lossy);
                        let mut flags = fl(&[]);
                        if lossy {
                            flags.insert("Lossy".into());
                        }
                        if !q.is_empty() {
                            flags.insert("Quirk".into());
                        }
                        let mut comment = name.to_string();
                        if !q.is_empty() {
                            comment += &format!(" [quirk {}]", q.join(", "));
                        }
                        if lossy && self.comp.family() == Family::Legacy12 && has_v1_rank(items) {
                            // A clause, so that a vector named before the quirk keeps its id.
                            comment += &format!("; v12 reads the ranks 2147483646 and 2147483647 as WILDCARD and UNDEF (quirk {L4})");
                        }
                        self.push(Draft {
                            comment,
                            items: items.to_vec(),
                            wire: bytes.clone(),
                            result: if acceptable {
                                Outcome::Acceptable
                            } else {
                                Outcome::Valid
                            },
                            flags,
                            error: None,
                            decoded: lossy.then_some(got),
                        });
                        Some(bytes)
                    }
                    Unpacked::Err { status, index } => {
                        self.inputs.insert(input_key(&bytes, &types));
                        self.push(Draft {
                            comment: format!("{name}: the packer accepts it but the unpacker cannot read the packer's own bytes"),
                            items: items.to_vec(),
                            wire: bytes,
                            result: Outcome::Invalid,
                            flags: fl(&["SelfUnpackFails"]),
                            error: Some((Phase::Decode, status, index)),
                            decoded: None,
                        });
                        None
                    }
                    Unpacked::Crashed(_) => match codec_unpack(self.codec(), &bytes, &types) {
                        Unpacked::Ok(got) => {
                            let lossy = !same_items(&got, items);
                            self.push(Draft {
                                comment: format!("{name}: libpmix crashes unpacking its own bytes; the decode expected is pmix-codec's"),
                                items: items.to_vec(),
                                wire: bytes,
                                result: Outcome::Acceptable,
                                flags: fl(if lossy { &["UpstreamBug", "Lossy"] } else { &["UpstreamBug"] }),
                                error: None,
                                decoded: lossy.then_some(got),
                            });
                            None
                        }
                        Unpacked::Err { status, index } => {
                            self.push(Draft {
                                comment: format!("{name}: libpmix crashes unpacking its own bytes; the status is pmix-codec's"),
                                items: items.to_vec(),
                                wire: bytes,
                                result: Outcome::Invalid,
                                flags: fl(&["UpstreamBug", "SelfUnpackFails"]),
                                error: Some((Phase::Decode, status, index)),
                                decoded: None,
                            });
                            None
                        }
                        _ => {
                            self.skip_detail("library crashed on unpack, codec cannot say", name);
                            None
                        }
                    },
                    Unpacked::Unexpressible(why) => {
                        self.skip_detail(
                            "unpack answer not expressible",
                            &format!("{name}: {why}"),
                        );
                        None
                    }
                }
            }
            Packed::Err {
                status,
                index,
                partial,
            } => {
                self.push(Draft {
                    comment: format!("{name}: refused by the packer"),
                    items: items.to_vec(),
                    wire: partial,
                    result: Outcome::Invalid,
                    flags: fl(&[]),
                    error: Some((Phase::Encode, status, index)),
                    decoded: None,
                });
                None
            }
            Packed::Crashed(why) => {
                match codec_pack(self.codec(), items) {
                    Packed::Err {
                        status,
                        index,
                        partial,
                    } => self.push(Draft {
                        comment: format!(
                            "{name}: libpmix crashes packing this; the status is pmix-codec's"
                        ),
                        items: items.to_vec(),
                        wire: partial,
                        result: Outcome::Invalid,
                        flags: fl(&["UpstreamBug"]),
                        error: Some((Phase::Encode, status, index)),
                        decoded: None,
                    }),
                    Packed::Ok(bytes) => match codec_unpack(self.codec(), &bytes, &types) {
                        Unpacked::Ok(got) => {
                            let lossy = !same_items(&got, items);
                            self.push(Draft {
                                comment: format!("{name}: libpmix crashes packing this; the bytes and the decode are pmix-codec's"),
                                items: items.to_vec(),
                                wire: bytes,
                                result: Outcome::Acceptable,
                                flags: fl(if lossy { &["UpstreamBug", "Lossy"] } else { &["UpstreamBug"] }),
                                error: None,
                                decoded: lossy.then_some(got),
                            })
                        }
                        _ => self.skip_detail(
                            "library crashed on pack, codec packs but cannot unpack it",
                            &format!("{name}: {why}"),
                        ),
                    },
                    _ => self.skip_detail(
                        "library crashed on pack, codec cannot say",
                        &format!("{name}: {why}"),
                    ),
                }
                None
            }
            Packed::Unexpressible(why) => {
                self.skip_detail("pack not expressible", &format!("{name}: {why}"));
                None
            }
        }
    }

    /// Hostile bytes: the judge must refuse them; the vector records how.
    pub(super) fn hostile(
        &mut self,
        comment: String,
        wire: Vec<u8>,
        types: &[DataType],
        flags: &[&str],
    ) {
        self.hostile_or_hardening(comment, wire, types, flags, None);
    }

    /// [`Gen::hostile`] for an input that pmix-codec refuses deliberately (quirk `quirk`)
    /// although the library accepts it: recorded as invalid with pmix-codec's status and the
    /// `Hardening` flag when the judge accepts it, like any hostile input otherwise.
    pub(super) fn hardening(
        &mut self,
        comment: String,
        wire: Vec<u8>,
        types: &[DataType],
        quirk: &str,
    ) {
        if self.judge.is_library() {
            self.hostile_or_hardening(comment, wire, types, &[], Some(quirk));
        } else {
            // Judged by the codec (master files): OpenPMIx master has no such bound either.
            self.hostile_or_hardening(
                format!("{comment}; OpenPMIx accepts it, pmix-codec refuses it (quirk {quirk})"),
                wire,
                types,
                &["Hardening"],
                None,
            );
        }
    }

    pub(super) fn hostile_or_hardening(
        &mut self,
        comment: String,
        wire: Vec<u8>,
        types: &[DataType],
        flags: &[&str],
        hardening: Option<&str>,
    ) {
        self.tick();
        let key = input_key(&wire, types);
        if !self.inputs.insert(key) {
            self.skip("duplicate hostile input");
            return;
        }
        let fl: BTreeSet<String> = flags.iter().map(|s| s.to_string()).collect();
        if matches!(self.rel, Release::OpenPmix6_0 | Release::OpenPmix6_1)
            && self.comp == Component::V12
            && cut_inside_v12_size_tag(self.codec(), &wire, types)
        {
            // 6.0/6.1 builds answer -16 or -50 here from one process to the next (they test
            // an uninitialized type, quirk U14): no reproducible expectation to record.
            self.skip_detail(
                "v12 described SIZE tag cut short: 6.x answers -16 or -50 from run to run (quirk U14)",
                &comment,
            );
            return;
        }
        let got = self
            .judge
            .unpack(self.comp, self.kind, &wire, types, 1)
            .unwrap_or_else(|e| panic!("the oracle died: {e}"));
        let got = match got {
            // Quirk U14: v12 reads an uninitialized int when a type tag is cut short, so the
            // library's -16 is stack garbage; record the deterministic short-read status.
            Unpacked::Err { status: -16, index } if self.comp == Component::V12 => {
                match codec_unpack(self.codec(), &wire, types) {
                    Unpacked::Err {
                        status: -50,
                        index: i,
                    } if i == index => {
                        self.invalid_decode(
                            format!("{comment}; libpmix tests an uninitialized type here (quirk U14), the status is pmix-codec's"),
                            wire,
                            types,
                            fl,
                            Some("UpstreamBug"),
                            -50,
                            index,
                        );
                        return;
                    }
                    _ => Unpacked::Err { status: -16, index },
                }
            }
            other => other,
        };
        match got {
            Unpacked::Err { status, index } => {
                let comment = naming_u6(self.codec(), comment, &wire, types);
                self.invalid_decode(comment, wire, types, fl, None, status, index)
            }
            Unpacked::Ok(_) => match (hardening, codec_unpack(self.codec(), &wire, types)) {
                (Some(quirk), Unpacked::Err { status, index }) => self.invalid_decode(
                    format!(
                        "{comment}; the library accepts it, pmix-codec refuses it (quirk {quirk})"
                    ),
                    wire,
                    types,
                    fl,
                    Some("Hardening"),
                    status,
                    index,
                ),
                _ => self.skip_detail(
                    "hostile input accepted (not expressible as a vector)",
                    &comment,
                ),
            },
            Unpacked::Crashed(_) => match codec_unpack(self.codec(), &wire, types) {
                Unpacked::Err { status, index } => self.invalid_decode(
                    format!("{comment}; libpmix crashes on it, the status is pmix-codec's"),
                    wire,
                    types,
                    fl,
                    Some("UpstreamBug"),
                    status,
                    index,
                ),
                _ => self.skip_detail(
                    "library crashed on hostile input, codec accepts it",
                    &comment,
                ),
            },
            Unpacked::Unexpressible(why) => self.skip_detail(
                "hostile unpack not expressible",
                &format!("{comment}: {why}"),
            ),
        }
    }

    /// Record a decode vector that fails with `status` at call `index`, plus `flag`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn invalid_decode(
        &mut self,
        comment: String,
        wire: Vec<u8>,
        types: &[DataType],
        mut flags: BTreeSet<String>,
        flag: Option<&str>,
        status: i32,
        index: usize,
    ) {
        flags.extend(flag.map(String::from));
        self.push(Draft {
            comment,
            items: types_only(types),
            wire,
            result: Outcome::Invalid,
            flags,
            error: Some((Phase::Decode, status, index)),
            decoded: None,
        })
    }

    // -- wire pieces for crafted inputs --

    pub(super) fn int32(&self, x: i64) -> Vec<u8> {
        if self.comp.family() == Family::Modern {
            let mut v = vec![];
            put_flex(&mut v, zigzag(x));
            v
        } else {
            (x as i32).to_be_bytes().to_vec()
        }
    }

    pub(super) fn tag(&self, t: u16) -> Vec<u8> {
        match self.comp.family() {
            Family::Legacy12 => (quirks::v12_wire_type(t) as u32).to_be_bytes().to_vec(),
            Family::Legacy20 | Family::Converged => t.to_be_bytes().to_vec(),
            Family::Modern => {
                let mut v = vec![];
                put_flex(&mut v, t as u64);
                v
            }
        }
    }

    /// The start of a pack record: [INT32 tag] count [type tag].
    pub(super) fn header(&self, count: i64, t: u16) -> Vec<u8> {
        let mut v = vec![];
        if self.kind == BufferKind::FullyDescribed {
            v.extend(self.tag(DataType::INT32.0));
        }
        v.extend(self.int32(count));
        if self.kind == BufferKind::FullyDescribed {
            v.extend(self.tag(t));
        }
        v
    }

    /// Length of the INT32 tag in front of a described record's count.
    pub(super) fn int32_tag_len(&self) -> usize {
        if self.kind == BufferKind::NonDescribed {
            0
        } else {
            self.tag(DataType::INT32.0).len()
        }
    }

    /// A nested SIZE as the family writes it in a non-described buffer.
    pub(super) fn size_field(&self, n: u64) -> Option<Vec<u8>> {
        match self.comp.family() {
            Family::Modern => {
                let mut v = vec![];
                put_flex(&mut v, n);
                Some(v)
            }
            Family::Converged if self.kind == BufferKind::NonDescribed => {
                let mut v = self.tag(DataType::UINT64.0);
                v.extend(n.to_be_bytes());
                Some(v)
            }
            _ => None,
        }
    }
}

/// The ranks PMIx 1.x used for WILDCARD and UNDEF (`INT32_MAX - 1`, `INT32_MAX`).
pub(super) const V1_RANKS: [u32; 2] = [i32::MAX as u32 - 1, i32::MAX as u32];

/// The quirk of v12's 1.x rank numbers.
pub(super) const L4: &str = "L4-v12-1x-ranks";

/// Whether a PROC anywhere in `items` has one of the 1.x special ranks ([`V1_RANKS`]).
fn has_v1_rank(items: &[Item]) -> bool {
    let text = json::items_to_json(items).to_string();
    V1_RANKS
        .iter()
        .any(|r| text.contains(&format!("\"rank\":{r}")))
}

/// The quirk id a comment names when the refusal is quirk U6's.
pub(super) const U6: &str = "U6-empty-int-record-at-end";

/// `comment`, saying so when what the reference decoder refuses in `wire` is an empty
/// integer record at the end of the buffer (quirk U6) and the comment does not yet: the
/// input's own defect (a truncation, a bad flex integer) is then not what is refused.
fn naming_u6(codec: Codec, comment: String, wire: &[u8], types: &[DataType]) -> String {
    match codec.decode(wire, types) {
        Err(e) if e.reason.contains("quirk U6") && !comment.contains(U6) => format!(
            "{comment}; what is refused is the empty integer record at the end of the buffer (quirk {U6})"
        ),
        _ => comment,
    }
}

fn input_key(wire: &[u8], types: &[DataType]) -> String {
    let t: Vec<String> = types.iter().map(|t| t.0.to_string()).collect();
    format!("{}|{}", pmix_oracle::hex::encode(wire), t.join(","))
}

/// Where a value field of `width` bytes (legacy/converged) or a one-byte varint (modern)
/// sits just before `body` in `enc` (searching from `from`), holding `expect` (already
/// encoded as the family writes it). Returns the field's start.
pub(super) fn field_before(enc: &[u8], from: usize, body: &[u8], expect: &[u8]) -> Option<usize> {
    let w = expect.len();
    (from + w..=enc.len().saturating_sub(body.len()))
        .find(|&p| enc[p..].starts_with(body) && &enc[p - w..p] == expect)
        .map(|p| p - w)
}
