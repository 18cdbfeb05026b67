//! The preg modules' framings of a REGEX (type 49), by release.
//!
//! A REGEX has no bfrops length: the bytes are whatever framing a preg module recognises,
//! and the module decides how many of them it takes. What each release's modules take
//! (read from their sources and checked against each library through the oracle):
//!
//! * `raw:` (every release): up to and including the first NUL.
//! * `pmix` (the native module, 4.2.x ... 6.1): the same.
//! * `blob` (the compress module): `blob:` NUL `component=zlib:` NUL `size=N:` NUL and N
//!   payload bytes. How many bytes the module takes is computed, not parsed:
//!   [`PregRule::SizeIgnored`] (4.2.x ... 6.0) runs `strtoul` over the text `size=N:`
//!   itself (0) and takes the header plus 5 bytes whatever N says;
//!   [`PregRule::SizeRead`] (6.1) steps over `size=` and takes N payload bytes;
//!   [`PregRule::Exact`] (7.0, master) checks every part of the header, refuses a malformed
//!   one (-27), and claims nothing whose first NUL lies outside the buffer (quirks R11, C3).
//!
//! Anything no module claims falls back to a plain STRING (quirk U4).

/// How a release's preg modules claim a REGEX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PregRule {
    /// 4.2.x ... 6.0: prefixes only; a `blob` is its header plus 5 bytes.
    SizeIgnored,
    /// 6.1: prefixes only; a `blob` is its header plus the N its size field says.
    SizeRead,
    /// 7.0 and master: the legacy decoder checks the whole framing.
    Exact,
}

/// What the preg modules make of bytes offered as a REGEX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// A module takes this many bytes.
    Takes(usize),
    /// No module claims them: the plain-string fallback (quirk U4).
    Unclaimed,
    /// Framed as a `blob` but malformed behind the tag: PMIX_ERR_BAD_PARAM (7.0, master).
    Malformed,
    /// The module would read past the bytes given (quirk C3).
    PastEnd,
}

const BLOB_LABEL: &[u8] = b"component=zlib:";
/// `strlen("blob: component=zlib: size=")`, the constant in the module's arithmetic.
const BLOB_PREFIX_LEN: u64 = 27;

/// C's `strtoul(s, &end, 10)`: the value (wrapping as the C conversion does for a
/// negative number, saturating on overflow) and how many bytes it consumed (0: no digits).
fn strtoul(s: &[u8]) -> (u64, usize) {
    let mut i = s
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'))
        .count();
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = s[i.min(s.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 {
        return (0, 0);
    }
    let mut v: u64 = 0;
    let mut overflow = false;
    for c in &s[i..i + digits] {
        match v
            .checked_mul(10)
            .and_then(|x| x.checked_add(u64::from(c - b'0')))
        {
            Some(x) => v = x,
            None => overflow = true,
        }
    }
    let v = if overflow {
        u64::MAX
    } else if neg {
        v.wrapping_neg()
    } else {
        v
    };
    (v, i + digits)
}

fn cstr_len(b: &[u8], from: usize) -> Option<usize> {
    b.get(from..)?.iter().position(|c| *c == 0)
}

/// What `rule` (with the native module when `native`) takes of `b`, the bytes from the
/// read position to the end of the buffer (decode) or a value's bytes (encode).
pub fn claim(b: &[u8], rule: PregRule, native: bool) -> Claim {
    match rule {
        PregRule::Exact => claim_exact(b),
        PregRule::SizeIgnored | PregRule::SizeRead => {
            let up_to_nul = || match cstr_len(b, 0) {
                Some(n) => Claim::Takes(n + 1),
                None => Claim::PastEnd,
            };
            if b.starts_with(b"raw:") || (native && b.starts_with(b"pmix")) {
                return up_to_nul();
            }
            if !b.starts_with(b"blob") {
                return Claim::Unclaimed;
            }
            let Some(tag) = cstr_len(b, 0) else {
                return Claim::PastEnd;
            };
            let mut i = tag + 1;
            let label = b.get(i..).unwrap_or_default();
            let n = label.len().min(BLOB_LABEL.len());
            if label[..n] != BLOB_LABEL[..n] {
                return Claim::Unclaimed;
            }
            if n < BLOB_LABEL.len() {
                return Claim::PastEnd;
            }
            i += BLOB_LABEL.len() + 1;
            if rule == PregRule::SizeRead {
                i += "size=".len();
            }
            let Some(rest) = cstr_len(b, i) else {
                return Claim::PastEnd;
            };
            let (n, _) = strtoul(&b[i..i + rest]);
            let total = n
                .wrapping_add(BLOB_PREFIX_LEN)
                .wrapping_add(rest as u64)
                .wrapping_add(1);
            match usize::try_from(total) {
                Ok(t) if t <= b.len() => Claim::Takes(t),
                _ => Claim::PastEnd,
            }
        }
    }
}

fn claim_exact(b: &[u8]) -> Claim {
    // Every layout starts with a NUL-terminated tag inside the bytes.
    let Some(tag) = cstr_len(b, 0) else {
        return Claim::Unclaimed;
    };
    if b.starts_with(b"raw:") {
        return Claim::Takes(tag + 1);
    }
    if &b[..tag] != b"blob:" {
        return Claim::Unclaimed;
    }
    let mut i = tag + 1;
    if i + BLOB_LABEL.len() >= b.len() || !b[i..].starts_with(BLOB_LABEL) {
        return Claim::Malformed;
    }
    i += BLOB_LABEL.len() + 1;
    if i + "size=".len() >= b.len() || !b[i..].starts_with(b"size=") {
        return Claim::Malformed;
    }
    i += "size=".len();
    let Some(rest) = cstr_len(b, i) else {
        return Claim::Malformed;
    };
    let (n, used) = strtoul(&b[i..i + rest]);
    if used == 0 {
        return Claim::Malformed;
    }
    // the digits are followed by ':' and the NUL
    let end = i + used;
    if b.get(end) != Some(&b':') || b.get(end + 1) != Some(&0) {
        return Claim::Malformed;
    }
    let payload = end + 2;
    match usize::try_from(n) {
        Ok(n) if n <= b.len() - payload => Claim::Takes(payload + n),
        _ => Claim::Malformed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(size: &str, payload: &[u8]) -> Vec<u8> {
        let mut b = b"blob:\0component=zlib:\0size=".to_vec();
        b.extend_from_slice(size.as_bytes());
        b.extend_from_slice(b":\0");
        b.extend_from_slice(payload);
        b
    }

    #[test]
    fn each_rule_takes_what_its_library_takes() {
        // Measured through the oracle: size=3 "abc" then 2 more bytes; 4.2.2 ... 6.0.0 take
        // 35, 6.1.0 and 7.0.0rc1 take 33.
        let mut b = blob("3", b"abc");
        b.extend_from_slice(&[2, 7]);
        assert_eq!(claim(&b, PregRule::SizeIgnored, true), Claim::Takes(35));
        assert_eq!(claim(&b, PregRule::SizeRead, true), Claim::Takes(33));
        assert_eq!(claim(&b, PregRule::Exact, false), Claim::Takes(33));
        // size=5: the one size every release agrees on
        let b = blob("5", b"abcde");
        for rule in [PregRule::SizeIgnored, PregRule::SizeRead, PregRule::Exact] {
            assert_eq!(claim(&b, rule, false), Claim::Takes(b.len()), "{rule:?}");
        }
        // no colon: 6.1.0 still takes it, 7.0.0rc1 says -27
        let b = b"blob:\0component=zlib:\0size=3\0abc".to_vec();
        assert_eq!(claim(&b, PregRule::SizeRead, false), Claim::Takes(b.len()));
        assert_eq!(claim(&b, PregRule::Exact, false), Claim::Malformed);
        // a tag that only starts with "blob": 6.1.0 takes it, 7.0.0rc1 falls back
        let b = b"blobX\0component=zlib:\0size=3:\0abc".to_vec();
        assert_eq!(claim(&b, PregRule::SizeRead, false), Claim::Takes(b.len()));
        assert_eq!(claim(&b, PregRule::Exact, false), Claim::Unclaimed);
        // the native module only where the release has it
        assert_eq!(
            claim(b"pmix[a]\0", PregRule::SizeRead, true),
            Claim::Takes(8)
        );
        assert_eq!(
            claim(b"pmix[a]\0", PregRule::Exact, false),
            Claim::Unclaimed
        );
        assert_eq!(claim(b"raw:a", PregRule::SizeRead, true), Claim::PastEnd);
        assert_eq!(claim(b"raw:a", PregRule::Exact, false), Claim::Unclaimed);
    }

    #[test]
    fn strtoul_is_cs() {
        assert_eq!(strtoul(b"12:"), (12, 2));
        assert_eq!(strtoul(b" +7"), (7, 3));
        assert_eq!(strtoul(b"-1"), (u64::MAX, 2));
        assert_eq!(strtoul(b"size=3"), (0, 0));
        assert_eq!(strtoul(b"99999999999999999999999"), (u64::MAX, 23));
    }
}
