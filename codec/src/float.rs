//! FLOAT and DOUBLE travel as C `printf("%f")` text and are read back with `strtof`/`strtod`.

/// Format like glibc's `printf("%f", x)`.
pub fn format_percent_f(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf".into() } else { "inf".into() };
    }
    // Rust's fixed-precision formatting is exact with ties to even, like glibc.
    format!("{x:.6}")
}

/// The longest prefix of `s` that `strtod` would consume, parsed; 0.0 if none.
pub fn parse_strtod(s: &[u8]) -> f64 {
    match numeric_prefix(s) {
        Some(p) => p.parse::<f64>().unwrap_or(0.0),
        None => 0.0,
    }
}

/// Like [`parse_strtod`] but rounding directly to `f32`, as `strtof` does.
pub fn parse_strtof(s: &[u8]) -> f32 {
    match numeric_prefix(s) {
        Some(p) => p.parse::<f32>().unwrap_or(0.0),
        None => 0.0,
    }
}

/// Extract a decimal float prefix (sign, digits, fraction, exponent) or inf/nan,
/// normalised so Rust's parser accepts it. Hexadecimal floats are not recognised.
fn numeric_prefix(s: &[u8]) -> Option<String> {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let start = i;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let sign = &s[start..i];
    let rest = &s[i..];
    let lower: Vec<u8> = rest
        .iter()
        .take(8)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let sign_s = std::str::from_utf8(sign).ok()?;
    if lower.starts_with(b"inf") {
        return Some(format!("{sign_s}inf"));
    }
    if lower.starts_with(b"nan") {
        return Some(format!("{sign_s}NaN"));
    }
    let mut j = i;
    let mut digits = 0;
    while j < s.len() && s[j].is_ascii_digit() {
        j += 1;
        digits += 1;
    }
    if j < s.len() && s[j] == b'.' {
        j += 1;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if j < s.len() && (s[j] == b'e' || s[j] == b'E') {
        let mut k = j + 1;
        if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
            k += 1;
        }
        let exp_start = k;
        while k < s.len() && s[k].is_ascii_digit() {
            k += 1;
        }
        if k > exp_start {
            j = k;
        }
    }
    let mut out = String::from(sign_s);
    let body = std::str::from_utf8(&s[i..j]).ok()?;
    if body.starts_with('.') {
        out.push('0');
    }
    out.push_str(body);
    if out.ends_with('.') {
        out.push('0');
    }
    Some(out.replace(".e", ".0e").replace(".E", ".0E"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_printf() {
        assert_eq!(format_percent_f(1.5), "1.500000");
        assert_eq!(format_percent_f(1e-9), "0.000000");
        assert_eq!(format_percent_f(-0.0), "-0.000000");
        assert_eq!(format_percent_f(f64::NAN), "nan");
        assert_eq!(format_percent_f(f64::NEG_INFINITY), "-inf");
        assert_eq!(format_percent_f(0.0078125), "0.007812");
    }

    #[test]
    fn parses_like_strtod() {
        assert_eq!(parse_strtod(b"1.500000"), 1.5);
        assert_eq!(parse_strtod(b"  -2.5xyz"), -2.5);
        assert_eq!(parse_strtod(b"abc"), 0.0);
        assert_eq!(parse_strtod(b"5."), 5.0);
        assert_eq!(parse_strtod(b".5"), 0.5);
        assert_eq!(parse_strtod(b"1e3"), 1000.0);
        assert_eq!(parse_strtod(b"1e"), 1.0);
        assert!(parse_strtod(b"nan").is_nan());
        assert_eq!(parse_strtod(b"-inf"), f64::NEG_INFINITY);
        assert_eq!(parse_strtof(b"1.250000"), 1.25f32);
    }
}
