//! Strings and byte objects: C strings as each release reads them, sized payloads, and
//! the text of floats and regexes.

use super::{err, Dec};
use crate::component::Family;
use crate::error::Result;
use crate::float::parse_strtof;
use crate::observe::{Meaning, Observer, Seg};
use crate::status::Status;
use crate::types::DataType;
use crate::value::*;
use bytes::Bytes;

impl<'a, O: Observer> Dec<'a, O> {
    /// `b` (a slice of the input) as [`Bytes`]: shared with the input when it is shared
    /// memory, else copied.
    #[inline]
    pub(super) fn share(&self, b: &'a [u8]) -> Bytes {
        match self.src {
            Some(src) => src.slice_ref(b),
            None => Bytes::copy_from_slice(b),
        }
    }

    /// `b` (a slice of the input) as a [`Text`]: inline when short, else shared like
    /// [`Dec::share`].
    #[inline]
    pub(super) fn text(&self, b: &'a [u8]) -> Text {
        if b.len() <= Text::INLINE {
            // one fixed-size copy from where `b` starts in the input, when the input is
            // long enough there
            let whole = self.r.whole();
            let off = (b.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
            if let Some(chunk) = whole.get(off..off.wrapping_add(Text::INLINE + 1)) {
                if let Ok(chunk) = <&[u8; Text::INLINE + 1]>::try_from(chunk) {
                    return Text::inline_prefix(chunk, b.len());
                }
            }
            return Text::copy_from(b);
        }
        match self.src {
            Some(src) => Text::from_shared(src.slice_ref(b)),
            None => Text::copy_from(b),
        }
    }

    pub(super) fn string_slice(&mut self) -> Result<Option<&'a [u8]>> {
        let at = self.at();
        let (len, enc) = self.i32_enc()?;
        self.emit(at, Meaning::StringLength { len, enc });
        if self.fam == Family::Legacy12 {
            self.taint_limit(len, at, "string length")?;
        }
        if len == 0 || (len < 0 && self.negative_string_is_null) {
            self.unname();
            return Ok(None);
        }
        if len < 0 {
            return Err(err(
                Status::ERR_OUT_OF_RESOURCE,
                at,
                format!("negative string length {len} (4.2.2 passes it to malloc)"),
            ));
        }
        let body_at = self.mark();
        let body = self.r.take(len as usize)?;
        // Master forces the last byte to NUL; 4.2.2 keeps it. A C reader stops at the first NUL.
        let body = if self.string_forces_nul {
            &body[..body.len() - 1]
        } else {
            body
        };
        let text = &body[..first_nul(body)];
        self.emit(body_at, Meaning::Text { text });
        Ok(Some(text))
    }

    /// A nullable C string.
    pub(super) fn string(&mut self) -> Result<NullableText> {
        Ok(self.string_slice()?.map(|b| self.text(b)))
    }

    /// [`Dec::string`] into `slot`.
    #[inline(never)]
    pub(super) fn string_into(&mut self, slot: &mut NullableText) -> Result<()> {
        *slot = self.string()?;
        Ok(())
    }

    /// A string that must not be NULL (keys, namespaces), cut to `max` bytes: NULL is
    /// `PMIX_ERROR`.
    #[inline]
    fn required_slice(&mut self, what: &str, max: usize) -> Result<&'a [u8]> {
        let at = self.at();
        match self.string_slice()? {
            Some(b) => Ok(&b[..b.len().min(max)]),
            None => Err(err(Status::ERROR, at, format!("NULL {what}"))),
        }
    }

    #[inline(always)]
    pub(super) fn required_string(&mut self, what: &str, max: usize) -> Result<Text> {
        let b = self.required_slice(what, max)?;
        Ok(self.text(b))
    }

    /// [`Dec::required_string`] into `slot`.
    pub(super) fn required_string_into(
        &mut self,
        what: &str,
        max: usize,
        slot: &mut Text,
    ) -> Result<()> {
        *slot = self.required_string(what, max)?;
        Ok(())
    }

    /// SIZE-prefixed bytes, borrowed from the input.
    #[inline]
    fn sized_slice(&mut self) -> Result<&'a [u8]> {
        if let Some((h, n)) = self.short_sized_quiet() {
            let s = self.r.take(h + n)?;
            return Ok(&s[h..]);
        }
        self.sized_slice_general()
    }

    /// The common SIZE prefixes, read without consuming anything: a modern one- or
    /// two-byte flex integer (every release reads those alike), or a converged UINT64 tag
    /// and its eight bytes; `(prefix length, payload length)` when the payload lies within
    /// the input. Anything else is left to [`Dec::sized_slice_general`].
    #[inline(always)]
    fn short_sized(&self) -> Option<(usize, usize)> {
        let rest = self.r.rest();
        let (h, n) = match (self.fam, rest) {
            (Family::Modern, [b0, ..]) if *b0 < 0x80 => (1, *b0 as u64),
            (Family::Modern, [b0, b1, ..]) if *b1 < 0x80 => {
                (2, (*b0 & 0x7f) as u64 | (*b1 as u64) << 7)
            }
            (Family::Converged, [t0, t1, a, b, c, d, e, f, g, h, ..])
                if self.array_int.is_none()
                    && u16::from_be_bytes([*t0, *t1]) == DataType::UINT64.0 =>
            {
                (10, u64::from_be_bytes([*a, *b, *c, *d, *e, *f, *g, *h]))
            }
            _ => return None,
        };
        (n <= (rest.len() - h) as u64).then_some((h, n as usize))
    }

    /// [`Dec::short_sized`] where nobody observes (an observer hears the general path).
    #[inline(always)]
    pub(super) fn short_sized_quiet(&self) -> Option<(usize, usize)> {
        if O::ACTIVE {
            None
        } else {
            self.short_sized()
        }
    }

    #[inline(never)]
    pub(super) fn sized_slice_general(&mut self) -> Result<&'a [u8]> {
        let at = self.at();
        // The SIZE prefix and the payload are reported under the same name.
        let name = self.pending;
        let n = self.size()?;
        self.pending = name;
        if n > self.r.remaining() as u64 {
            return Err(err(
                Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                at,
                format!("{n} bytes claimed, {} left", self.r.remaining()),
            ));
        }
        self.take(n as usize)
    }

    pub(super) fn sized_bytes(&mut self) -> Result<Bytes> {
        let b = self.sized_slice()?;
        Ok(self.share(b))
    }

    pub(super) fn float_text(&mut self) -> Result<Option<Text>> {
        self.string()
    }

    pub(super) fn texts(&mut self, n: usize) -> Result<Vec<NullableText>> {
        let mut v = self.with_room(n);
        for i in 0..n {
            self.name(Seg::Index(i));
            self.room(&mut v)?;
            let s = self.string()?;
            self.put(&mut v, s);
        }
        Ok(v)
    }

    /// An APP's argv or env: `n` strings, none of which may be NULL for the unpacker
    /// (quirk U17); as written, a NULL is kept.
    pub(super) fn app_texts(&mut self, n: usize, what: &str) -> Result<Vec<NullableText>> {
        let mut v = self.with_room(n);
        for i in 0..n {
            let at = self.at();
            self.name(Seg::Index(i));
            let s = self.string()?;
            if s.is_none() && self.as_read() {
                self.name(Seg::Index(i));
                return Err(err(
                    Status::ERROR,
                    at,
                    format!("NULL APP {what}[{i}]: the unpacker refuses it (quirk U17)"),
                ));
            }
            self.room(&mut v)?;
            self.put(&mut v, s);
        }
        Ok(v)
    }

    /// [`Dec::sized_bytes`] into `b`.
    #[inline(never)]
    pub(super) fn sized_into(&mut self, b: &mut Bytes) -> Result<()> {
        *b = self.sized_bytes()?;
        Ok(())
    }

    pub(super) fn f32_text(&mut self) -> Result<f32> {
        Ok(self
            .float_text()?
            .map(|t| parse_strtof(&t[..]))
            .unwrap_or(0.0))
    }

    /// REGEX: the bytes the release's preg modules claim, with no bfrops length
    /// ([`crate::preg`]: `raw:...\0`, `blob:\0component=zlib:\0size=N:\0` + payload, up to
    /// 6.1 `pmix...\0`).
    pub(super) fn regex(&mut self) -> Result<Bytes> {
        use crate::preg::{claim, Claim};
        let at = self.at();
        let p = self.rel.profile();
        match claim(self.r.rest(), p.preg, p.regex_pmix_framing) {
            Claim::Takes(n) => {
                let b = self.take(n)?;
                return Ok(self.share(b));
            }
            Claim::PastEnd => {
                return Err(err(
                    Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                    at,
                    "the preg module would read the regex past the end of the input (quirk C3)",
                ))
            }
            Claim::Malformed => {
                return Err(err(
                    Status::ERR_BAD_PARAM,
                    at,
                    "a `blob:` regex malformed behind its tag (quirk R11)",
                ))
            }
            Claim::Unclaimed => {}
        }
        // No preg module claims it: OpenPMIx falls back to a whole unpack of one STRING
        // through its own peer's module, which refuses a buffer of another kind than its
        // default (non-described): -20 for a described buffer (quirk U4).
        if self.desc {
            return Err(err(
                Status::ERR_UNPACK_FAILURE,
                at,
                "REGEX fallback: a described buffer is not the local default kind (quirk U4)",
            ));
        }
        self.unpack_call(DataType::STRING, 1)?;
        Err(err(
            Status::ERR_UNPACK_FAILURE,
            at,
            "REGEX without a known preg framing: a plain string (quirk U4)",
        ))
    }
}

/// The index of the first NUL in `b`, or its length: where a C reader's string ends.
#[inline]
fn first_nul(b: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut chunks = b.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // The lowest flagged byte is always a real zero (borrows only run upwards).
        let z = w.wrapping_sub(LO) & !w & HI;
        if z != 0 {
            return at + (z.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    let rest = chunks.remainder();
    if rest.is_empty() {
        return at;
    }
    if b.len() >= 8 {
        // The last eight bytes, overlapping the words already read: those had no zero, so
        // the lowest flagged byte of this word is still the first zero after them.
        let w = u64::from_le_bytes(b[b.len() - 8..].try_into().expect("eight bytes"));
        let z = w.wrapping_sub(LO) & !w & HI;
        return if z != 0 {
            b.len() - 8 + (z.trailing_zeros() / 8) as usize
        } else {
            b.len()
        };
    }
    rest.iter().position(|c| *c == 0).unwrap_or(rest.len())
}

#[cfg(test)]
mod tests {
    use super::first_nul;

    #[test]
    fn first_nul_is_the_first_zero_byte() {
        for len in 0..40 {
            for zero_at in 0..=len {
                for fill in [0x01u8, 0x80, 0xff, 0x7f] {
                    let mut b = vec![fill; len];
                    if zero_at < len {
                        b[zero_at] = 0;
                        // more zeros and 0x01 bytes after the first zero must not matter
                        for (i, x) in b.iter_mut().enumerate().skip(zero_at + 1) {
                            *x = if i % 2 == 0 { 0 } else { 1 };
                        }
                    }
                    assert_eq!(first_nul(&b), zero_at, "{b:02x?}");
                }
            }
        }
    }
}
