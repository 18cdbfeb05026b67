//! Info arrays carried as codec wire bytes.
//!
//! Requests and responses carry `pmix_info_t` arrays the way a PMIx peer would: packed
//! with `pmix-codec` in one component's wire format (one pack call of type `INFO`) and
//! sent as lowercase hex together with the component and buffer-kind names.

use pmix_codec::{BufferKind, Codec, Component, DataType, Info, Item, Value};
use serde::{Deserialize, Serialize};

/// An info array in a chosen wire format, as it travels in the protocol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireInfo {
    /// The bfrops component name (`v61`, `v41`, ...).
    pub component: String,
    /// The buffer kind (`non-described` or `fully-described`).
    #[serde(default = "default_kind")]
    pub kind: String,
    /// The packed bytes in lowercase hex; empty for an empty array (nothing is packed).
    pub hex: String,
}

fn default_kind() -> String {
    BufferKind::NonDescribed.name().to_string()
}

/// The wire format used to pack info arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireFormat {
    /// The component.
    pub component: Component,
    /// The buffer kind.
    pub kind: BufferKind,
}

impl Default for WireFormat {
    fn default() -> Self {
        WireFormat {
            component: Component::V61,
            kind: BufferKind::NonDescribed,
        }
    }
}

impl WireFormat {
    /// Parse component and kind names.
    pub fn parse(component: &str, kind: &str) -> Result<Self, String> {
        Ok(WireFormat {
            component: component.parse()?,
            kind: kind.parse()?,
        })
    }

    fn codec(self) -> Codec {
        Codec::new(self.component, self.kind)
    }

    /// Pack `infos` (one INFO pack call) into a [`WireInfo`].
    pub fn encode(self, infos: &[Info]) -> Result<WireInfo, String> {
        let hex = if infos.is_empty() {
            String::new()
        } else {
            let item = Item::new(
                DataType::INFO,
                infos
                    .iter()
                    .cloned()
                    .map(|i| Value::Info(Box::new(i)))
                    .collect(),
            );
            let bytes = self.codec().encode(&[item]).map_err(|e| {
                format!(
                    "cannot pack the info array with {}/{}: {e}",
                    self.component.name(),
                    self.kind.name()
                )
            })?;
            to_hex(&bytes)
        };
        Ok(WireInfo {
            component: self.component.name().into(),
            kind: self.kind.name().into(),
            hex,
        })
    }
}

impl WireInfo {
    /// The wire format named by this message.
    pub fn format(&self) -> Result<WireFormat, String> {
        WireFormat::parse(&self.component, &self.kind)
    }

    /// Unpack the info array.
    pub fn decode(&self) -> Result<Vec<Info>, String> {
        let fmt = self.format()?;
        if self.hex.is_empty() {
            return Ok(Vec::new());
        }
        let bytes = from_hex(&self.hex)?;
        let items = fmt.codec().decode(&bytes, &[DataType::INFO]).map_err(|e| {
            format!(
                "cannot unpack the info array ({}/{}): {e}",
                fmt.component.name(),
                fmt.kind.name()
            )
        })?;
        let mut out = Vec::new();
        for item in items {
            for v in item.values {
                match v {
                    Value::Info(i) => out.push(*i),
                    other => {
                        return Err(format!(
                            "unexpected {} in an INFO pack call",
                            other.data_type()
                        ))
                    }
                }
            }
        }
        // The codec is byte-exact: a well-formed array packs back to the very same bytes.
        // Anything else (truncation, trailing bytes, a short count) is malformed input.
        let again = fmt.encode(&out)?;
        if again.hex != self.hex.to_ascii_lowercase() {
            return Err(format!(
                "malformed info array: {} bytes received, but the {} decoded info(s) pack to {} bytes",
                bytes.len(),
                out.len(),
                again.hex.len() / 2
            ));
        }
        Ok(out)
    }
}

/// Lowercase hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes of a hex string (either case, no separators).
pub fn from_hex(s: &str) -> Result<Vec<u8>, String> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return Err(format!("hex string has an odd length ({})", s.len()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            s.get(i..i + 2)
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| format!("invalid hex at offset {i}"))
        })
        .collect()
}

/// The text of a STRING value (`NULL` reads as the empty string); `None` for other types.
pub fn string_of(v: &Value) -> Option<String> {
    match v {
        Value::String(Some(t)) => Some(t.to_string()),
        Value::String(None) => Some(String::new()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_inheritance() {
        let infos = vec![
            Info::new(pmix_codec::attrs::ALLOC_INHERITANCE, Value::AllocInherit(2)),
            Info::new(pmix_codec::attrs::ALLOC_REQ_ID, Value::string("r1")),
        ];
        let w = WireFormat::default().encode(&infos).unwrap();
        assert_eq!(w.component, "v61");
        assert_eq!(w.decode().unwrap(), infos);
        assert!(WireFormat {
            component: Component::V41,
            ..Default::default()
        }
        .encode(&infos)
        .is_err());
        assert!(from_hex("abc").is_err());
        assert!(from_hex("zz").is_err());
    }
}
