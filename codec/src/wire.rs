//! Byte-level primitives: the bounded [`Reader`] cursor and the flexible-integer codec.

use crate::component::{FlexTail, Release};
use crate::error::{Error, Result};
use crate::status::Status;
use std::mem::MaybeUninit;

/// A bounded cursor over input bytes. Every read checks the remaining length first, so
/// nothing can read outside the input.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }
    /// Current offset from the start of the input.
    #[inline]
    pub fn offset(&self) -> usize {
        self.pos
    }
    /// Bytes not yet consumed.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// The whole input, read and unread.
    #[inline]
    pub fn whole(&self) -> &'a [u8] {
        self.buf
    }
    /// The unconsumed bytes.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }
    /// Consume exactly `n` bytes or fail with `PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER`.
    #[inline]
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(past_end(self.pos, n, self.remaining()));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    /// One byte.
    #[inline(always)]
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    /// Big-endian u16.
    #[inline(always)]
    pub fn be16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    /// Big-endian u32.
    #[inline(always)]
    pub fn be32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// Big-endian u64.
    #[inline(always)]
    pub fn be64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    /// A flexible unsigned integer of `width` bytes (2, 4 or 8), as the release decodes it.
    #[inline]
    pub fn flex(&mut self, width: usize, release: Release) -> Result<u64> {
        match self.flex_short(width) {
            Some(v) => Ok(v),
            None => self.flex_beyond_short(width, release),
        }
    }

    /// [`Reader::flex`] where [`Reader::flex_short`] does not apply: the decoder's own path
    /// after its fast path, so the short forms are read in one place only.
    #[inline]
    pub(crate) fn flex_beyond_short(&mut self, width: usize, release: Release) -> Result<u64> {
        if self.remaining() >= 9 {
            self.flex_long(width, release)
        } else {
            self.flex_slow(width, release)
        }
    }

    /// [`Reader::flex`] for the short forms: one or two bytes, and for a `width` of 4 or 8
    /// three or four, with the stop byte inside the input. Every release reads those alike
    /// (4.2.2's raw last byte is below 0x80 there, so it is its own 7-bit group) and
    /// they fit the width. `None`, nothing consumed, for anything else.
    #[inline(always)]
    pub(crate) fn flex_short(&mut self, width: usize) -> Option<u64> {
        let g = |b: &u8, i: u32| ((*b & 0x7f) as u64) << (7 * i);
        let (v, n) = match self.rest() {
            [b0, ..] if *b0 < 0x80 => (*b0 as u64, 1),
            [b0, b1, ..] if *b1 < 0x80 => (g(b0, 0) | g(b1, 1), 2),
            [b0, b1, b2, ..] if width >= 4 && *b2 < 0x80 => (g(b0, 0) | g(b1, 1) | g(b2, 2), 3),
            [b0, b1, b2, b3, ..] if width >= 4 && *b3 < 0x80 => {
                (g(b0, 0) | g(b1, 1) | g(b2, 2) | g(b3, 3), 4)
            }
            _ => return None,
        };
        self.pos += n;
        Some(v)
    }

    /// [`Reader::flex`] with nine bytes or more left.
    #[inline(never)]
    fn flex_long(&mut self, width: usize, release: Release) -> Result<u64> {
        // Nine bytes or more left: both releases read up to eight 7-bit groups,
        // then one raw byte.
        let b = &self.rest()[..9];
        let mut value = 0u64;
        let mut i = 0;
        let bits = loop {
            let byte = b[i];
            value |= ((byte & 0x7f) as u64) << (7 * i);
            i += 1;
            if byte < 0x80 {
                break 8 - byte.leading_zeros() as usize + 7 * (i - 1);
            }
            if i == 8 {
                value |= (b[8] as u64) << 56;
                i = 9;
                break 8 - b[8].leading_zeros() as usize + 56;
            }
        };
        if bits.div_ceil(8) > width {
            return self.flex_slow(width, release);
        }
        self.pos += i;
        Ok(value)
    }

    #[inline(never)]
    fn flex_slow(&mut self, width: usize, release: Release) -> Result<u64> {
        let start = self.pos;
        let avail = self.remaining();
        if avail == 0 {
            // Both releases refuse an empty region when an integer unpack call starts; 4.2.x's
            // over-read inside an array is the decoder's business (quirk R1).
            return Err(past_end(start, 1, 0));
        }
        let flex_size = avail.min(9);
        let bytes = &self.buf[start..start + flex_size];
        let mut value: u64 = 0;
        let mut shift = 0u32;
        let mut shift_last;
        let mut idx = 0usize;
        let mut last;
        match release.profile().flex_tail {
            FlexTail::PastEnd => {
                // Seven bits a byte for at most 8 bytes, then one raw 8-bit byte.
                loop {
                    last = bytes[idx];
                    idx += 1;
                    shift_last = shift;
                    value = value.wrapping_add(((last & 0x7f) as u64) << shift);
                    shift += 7;
                    if last & 0x80 == 0 || idx >= 8 || idx >= flex_size {
                        break;
                    }
                }
                if last & 0x80 != 0 {
                    if idx == 8 && idx < flex_size {
                        last = bytes[idx];
                        idx += 1;
                        value = value.wrapping_add((last as u64) << shift);
                        shift_last = shift;
                    } else {
                        return Err(Error::new(
                            Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                            start,
                            "flex integer: input ends inside the encoding",
                        ));
                    }
                }
            }
            FlexTail::RawLastByte => {
                // 4.2.2 (psquash flex128): the last byte it may read is taken raw.
                loop {
                    last = bytes[idx];
                    idx += 1;
                    shift_last = shift;
                    value = value.wrapping_add(((last & 0x7f) as u64) << shift);
                    shift += 7;
                    if last & 0x80 == 0 || idx + 1 >= flex_size {
                        break;
                    }
                }
                if flex_size >= 1 && idx + 1 == flex_size && last & 0x80 != 0 {
                    last = bytes[idx];
                    idx += 1;
                    value = value.wrapping_add((last as u64) << shift);
                    shift_last = shift;
                }
            }
        }
        let hi_bit = 8 - last.leading_zeros() as usize;
        let bits = hi_bit + shift_last as usize;
        let size = bits.div_ceil(8);
        if size > width {
            return Err(Error::new(
                Status::ERR_UNPACK_FAILURE,
                start,
                format!("flex integer wider than {width} bytes"),
            ));
        }
        self.pos += idx;
        Ok(value)
    }
}

/// Hint the CPU to bring the cache line of `b` in (a software prefetch). Only a hint:
/// nothing is read that the program sees.
#[inline(always)]
pub(crate) fn prefetch(b: &u8) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unused_unsafe)]
    // SAFETY: `_mm_prefetch` reads no memory the program observes and cannot fault; the
    // address comes from a reference anyway. (`unsafe` is needed before Rust 1.87 only.)
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            b as *const u8 as *const i8,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = b;
}

#[cold]
fn past_end(pos: usize, want: usize, have: usize) -> Error {
    Error::new(
        Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER,
        pos,
        format!("need {want} bytes, {have} left"),
    )
}

/// Append the flexible encoding of `u`: 7-bit groups, little-endian, continuation bit
/// 0x80, at most 8 groups and then one raw 8-bit group.
#[inline]
pub fn put_flex(out: &mut Vec<u8>, u: u64) {
    if u < 0x80 {
        out.push(u as u8);
    } else if u < 0x4000 {
        out.extend_from_slice(&[u as u8 | 0x80, (u >> 7) as u8]);
    } else {
        put_flex_long(out, u);
    }
}

/// The flexible encoding of `u` (as [`put_flex`] writes it) at the start of `head`
/// (at least ten bytes); how many bytes it took.
#[inline(always)]
pub(crate) fn flex_into(u: u64, head: &mut [MaybeUninit<u8>]) -> usize {
    if u < 0x80 {
        head[0].write(u as u8);
        1
    } else if u < 0x4000 {
        head[0].write(u as u8 | 0x80);
        head[1].write((u >> 7) as u8);
        2
    } else {
        let (bytes, n) = flex_long(u);
        for (d, s) in head.iter_mut().zip(&bytes[..n]) {
            d.write(*s);
        }
        n
    }
}

/// Append each payload behind its length prefix, as a loop of "write the prefix, then
/// `extend_from_slice`" would, but with one capacity check per payload and the buffer's
/// length stored once at the end: with many small byte objects that bookkeeping cost as
/// much as a third of the copy itself. `prefix` writes a length at the start of the
/// 16 bytes it is given and says how many it wrote.
///
/// A `None` payload stops the run and gives `false`; what was written before it stays.
#[inline]
pub(crate) fn put_sized_run<'v, I, P>(out: &mut Vec<u8>, payloads: I, prefix: P) -> bool
where
    I: IntoIterator<Item = Option<&'v [u8]>>,
    P: Fn(u64, &mut [MaybeUninit<u8>]) -> usize,
{
    let mut len = out.len();
    let mut ok = true;
    for payload in payloads {
        let Some(payload) = payload else {
            ok = false;
            break;
        };
        let room = 16 + payload.len();
        if out.capacity() - len < room {
            // SAFETY: every byte below `len` has been written (by the caller, or below).
            unsafe { out.set_len(len) };
            out.reserve(room);
        }
        // The spare capacity starts at `out.len()` (where the run began, or where the last
        // `reserve` left it); the run's write position is `len`.
        let skip = len - out.len();
        let spare = &mut out.spare_capacity_mut()[skip..skip + room];
        let h = prefix(payload.len() as u64, &mut spare[..16]).min(16);
        // SAFETY: `spare[h..]` has room for the payload (`room` = 16 + its length); the
        // payload borrows memory that is not `out`'s (we hold `out` mutably).
        unsafe {
            std::ptr::copy_nonoverlapping(
                payload.as_ptr(),
                spare[h..].as_mut_ptr().cast::<u8>(),
                payload.len(),
            );
        }
        len += h + payload.len();
    }
    // SAFETY: the bytes up to `len` were written above (prefix, then payload, back to back).
    unsafe { out.set_len(len) };
    ok
}

fn put_flex_long(out: &mut Vec<u8>, u: u64) {
    let (bytes, n) = flex_long(u);
    out.extend_from_slice(&bytes[..n]);
}

/// The flexible encoding of `u` in the general way (any length): the bytes and how many.
fn flex_long(mut u: u64) -> ([u8; 9], usize) {
    let mut bytes = [0u8; 9];
    let mut n = 0;
    loop {
        let mut b = (u & 0x7f) as u8;
        u >>= 7;
        if u != 0 {
            b |= 0x80;
        }
        bytes[n] = b;
        n += 1;
        if u == 0 || n == 8 {
            break;
        }
    }
    if n == 8 && u != 0 {
        bytes[n] = u as u8;
        n += 1;
    }
    (bytes, n)
}

/// Zigzag-encode a signed value (sign-extended to 64 bits).
pub fn zigzag(x: i64) -> u64 {
    if x < 0 {
        (!(x as u64) << 1) | 1
    } else {
        (x as u64) << 1
    }
}

/// Undo [`zigzag`].
pub fn unzigzag(u: u64) -> i64 {
    if u & 1 != 0 {
        !(u >> 1) as i64
    } else {
        (u >> 1) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(u: u64) -> Vec<u8> {
        let mut v = Vec::new();
        put_flex(&mut v, u);
        v
    }

    #[test]
    fn flex_reference_examples() {
        assert_eq!(enc(0), [0x00]);
        assert_eq!(enc(300), [0xac, 0x02]);
        assert_eq!(enc(16384), [0x80, 0x80, 0x01]);
        assert_eq!(
            enc((1 << 56) - 1),
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]
        );
        assert_eq!(
            enc(1 << 56),
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]
        );
        assert_eq!(enc(1 << 63), [0x80; 9]);
        assert_eq!(enc(u64::MAX), [0xff; 9]);
        for u in [0, 1, 127, 128, 300, 16383, 16384, 1 << 40] {
            let mut long = Vec::new();
            put_flex_long(&mut long, u);
            assert_eq!(enc(u), long, "{u}");
        }
        assert_eq!(zigzag(-65), 129);
        assert_eq!(zigzag(i64::MIN), u64::MAX);
        assert_eq!(unzigzag(u64::MAX), i64::MIN);
    }

    #[test]
    fn flex_fast_path_agrees_with_the_general_decoder() {
        let tails: [&[u8]; 3] = [
            &[],
            &[0x01],
            &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
        ];
        for r in Release::ALL {
            for width in [2, 4, 8] {
                for b0 in 0..=255u8 {
                    for b1 in 0..=255u8 {
                        for tail in tails {
                            let mut buf = vec![b0, b1];
                            buf.extend_from_slice(tail);
                            for len in [1, 2, 3, buf.len()] {
                                let input = &buf[..len.min(buf.len())];
                                let (mut a, mut b) = (Reader::new(input), Reader::new(input));
                                assert_eq!(a.flex(width, r), b.flex_slow(width, r), "{input:02x?}");
                                assert_eq!(a.pos, b.pos);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn flex_fast_paths_agree_with_the_general_decoder_on_long_encodings() {
        let mut values = vec![0u64, u64::MAX];
        for shift in 0..64 {
            let p = 1u64 << shift;
            values.extend([p - 1, p, p + 1, p | (p >> 1), !p]);
        }
        for u in values {
            let canonical = enc(u);
            // the same value with redundant zero groups, as far as nine bytes allow
            let mut padded = canonical.clone();
            if padded.len() < 8 {
                let last = padded.len() - 1;
                padded[last] |= 0x80;
                padded.resize(8, 0x80);
                padded[7] = 0;
            }
            for wire in [canonical, padded] {
                for trail in [0usize, 1, 9] {
                    let mut buf = wire.clone();
                    buf.resize(wire.len() + trail, 0x81);
                    for len in 1..=buf.len() {
                        for r in Release::ALL {
                            for width in [2, 4, 8] {
                                let (mut a, mut b) =
                                    (Reader::new(&buf[..len]), Reader::new(&buf[..len]));
                                assert_eq!(
                                    a.flex(width, r),
                                    b.flex_slow(width, r),
                                    "{:02x?}",
                                    &buf[..len]
                                );
                                assert_eq!(a.pos, b.pos);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn flex_short_agrees_with_the_general_decoder() {
        let mut checked = 0;
        for b0 in 0..=255u8 {
            for b1 in (0..=255u8).step_by(3) {
                for b2 in [0u8, 1, 0x40, 0x7f, 0x80, 0xc1, 0xff] {
                    for b3 in [0u8, 0x33, 0x7f, 0x80, 0xff] {
                        for extra in [0usize, 1, 5, 9] {
                            let mut buf = vec![b0, b1, b2, b3];
                            buf.resize(buf.len() + extra, 0x85);
                            for cut in 0..=buf.len() {
                                for width in [2, 4, 8] {
                                    for rel in [Release::Master, Release::OpenPmix4_2] {
                                        let mut r = Reader::new(&buf[..cut]);
                                        if let Some(v) = r.flex_short(width) {
                                            let mut g = Reader::new(&buf[..cut]);
                                            let want = g.flex_slow(width, rel).unwrap();
                                            assert_eq!((v, r.pos), (want, g.pos), "{buf:x?}");
                                            checked += 1;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn flex_decode_rules() {
        for r in Release::ALL {
            for u in [
                0u64,
                1,
                127,
                128,
                16383,
                16384,
                1 << 31,
                u32::MAX as u64,
                1 << 56,
                1 << 63,
                u64::MAX,
            ] {
                let b = enc(u);
                assert_eq!(Reader::new(&b).flex(8, r).unwrap(), u);
            }
            // UINT16 width check: ff ff 03 fits, ff ff 07 does not.
            assert_eq!(Reader::new(&[0xff, 0xff, 0x03]).flex(2, r).unwrap(), 65535);
            assert_eq!(
                Reader::new(&[0xff, 0xff, 0x07])
                    .flex(2, r)
                    .unwrap_err()
                    .status,
                Status::ERR_UNPACK_FAILURE
            );
            assert_eq!(Reader::new(&[0x80, 0x00]).flex(2, r).unwrap(), 0);
        }
        // Truncated: master refuses, 4.2.2 reads the last byte as a raw tail.
        assert_eq!(
            Reader::new(&[0xff, 0xff])
                .flex(2, Release::Master)
                .unwrap_err()
                .status,
            Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
        );
        assert_eq!(
            Reader::new(&[0xff, 0xff])
                .flex(2, Release::OpenPmix4_2)
                .unwrap(),
            32767
        );
        assert_eq!(
            Reader::new(&[])
                .flex(2, Release::Master)
                .unwrap_err()
                .status,
            Status::ERR_UNPACK_READ_PAST_END_OF_BUFFER
        );
    }
}
