//! Where bytes and JSON come from: hex on the command line, a file, or stdin.

use crate::Failure;
use std::io::Read;
use std::path::PathBuf;

/// How to read a file or stdin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// Hex if the input is only hex digits and whitespace, raw bytes otherwise.
    Auto,
    /// Hex digits; whitespace, `0x` prefixes and `:` `,` `_` separators are ignored.
    Hex,
    /// The bytes as they are.
    Raw,
}

/// Parse hex as people paste it: `02 2a`, `0x02,0x2a`, `02:2a`, `022a`.
pub fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    let mut digits = String::with_capacity(s.len());
    for tok in s.split(|c: char| c.is_whitespace() || c == ',' || c == ':' || c == '_') {
        let tok = tok
            .strip_prefix("0x")
            .or_else(|| tok.strip_prefix("0X"))
            .unwrap_or(tok);
        digits.push_str(tok);
    }
    if let Some((i, c)) = digits.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(format!(
            "not a hex digit: {c:?} (at hex digit {i}; valid: 0-9 a-f A-F, separated by spaces, `,` `:` `_` or nothing, each byte optionally prefixed with 0x)"
        ));
    }
    if !digits.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    pmix_oracle::hex::decode(&digits).ok_or_else(|| "invalid hex".to_string())
}

fn looks_like_hex(b: &[u8]) -> bool {
    let s = match std::str::from_utf8(b) {
        Ok(s) => s,
        Err(_) => return false,
    };
    !s.trim().is_empty() && parse_hex(s).is_ok()
}

/// Read all of a file (`-` = stdin).
pub fn read_source(path: Option<&PathBuf>, stdin: &mut dyn Read) -> Result<Vec<u8>, Failure> {
    match path {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::read(p).map_err(|e| Failure::Io(format!("cannot read {}: {e}", p.display())))
        }
        _ => {
            let mut b = Vec::new();
            stdin
                .read_to_end(&mut b)
                .map_err(|e| Failure::Io(format!("cannot read stdin: {e}")))?;
            Ok(b)
        }
    }
}

/// The input bytes: positional hex, else `--file` (or stdin) in `format`.
pub fn bytes(
    hex: &[String],
    file: Option<&PathBuf>,
    format: InputFormat,
    stdin: &mut dyn Read,
) -> Result<Vec<u8>, Failure> {
    if !hex.is_empty() {
        if file.is_some() {
            return Err(Failure::Usage(
                "give the bytes either as HEX arguments or with --file, not both".into(),
            ));
        }
        if format == InputFormat::Raw {
            return Err(Failure::Usage(
                "--input raw applies to --file or stdin, not to HEX arguments".into(),
            ));
        }
        return parse_hex(&hex.join(" "))
            .map_err(|e| Failure::Usage(format!("bad hex argument: {e}")));
    }
    let data = read_source(file, stdin)?;
    match format {
        InputFormat::Raw => Ok(data),
        InputFormat::Auto if !looks_like_hex(&data) => Ok(data),
        _ => {
            let s = std::str::from_utf8(&data).map_err(|_| {
                Failure::Usage("input is not hex text (use --input raw for binary)".into())
            })?;
            parse_hex(s).map_err(|e| Failure::Usage(format!("bad hex input: {e}")))
        }
    }
}

/// JSON text: the positional argument, else `--file` (or stdin).
pub fn json_text(
    arg: Option<&String>,
    file: Option<&PathBuf>,
    stdin: &mut dyn Read,
) -> Result<String, Failure> {
    match (arg, file) {
        (Some(_), Some(_)) => Err(Failure::Usage(
            "give the items either as an argument or with --file, not both".into(),
        )),
        (Some(a), None) => Ok(a.clone()),
        (None, f) => {
            let b = read_source(f, stdin)?;
            String::from_utf8(b).map_err(|_| Failure::Usage("the JSON input is not UTF-8".into()))
        }
    }
}

/// JSON items: an array of `{"type", "values"}` objects, or one such object.
pub fn items(text: &str) -> Result<Vec<pmix_codec::Item>, Failure> {
    let j: serde_json::Value =
        serde_json::from_str(text).map_err(|e| Failure::Usage(format!("invalid JSON: {e}")))?;
    let j = if j.is_object() {
        serde_json::Value::Array(vec![j])
    } else {
        j
    };
    pmix_codec::json::items_from_json(&j).map_err(|e| Failure::Usage(format!("bad items: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_forms() {
        assert_eq!(parse_hex("02 2a").unwrap(), [2, 0x2a]);
        assert_eq!(parse_hex("0x02,0x2A").unwrap(), [2, 0x2a]);
        assert_eq!(parse_hex("02:2a\n").unwrap(), [2, 0x2a]);
        assert!(parse_hex("0g").is_err());
        assert!(parse_hex("022").is_err());
        assert!(looks_like_hex(b"022a\n"));
        assert!(!looks_like_hex(&[2, 0x2a]));
    }
}
