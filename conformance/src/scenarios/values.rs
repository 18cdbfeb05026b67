//! Turning scenario text into protocol values: variables, requesters, directives,
//! statuses and typed info arrays.

use super::{InfoSpec, StatusSpec};
use crate::protocol::{Requester, RequesterKind};
use pmix_codec::attrs::{self, alloc_directive};
use pmix_codec::{DataType, Info, Status, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Variable bindings (`$A` -> allocation id). In check mode only the names are known.
#[derive(Clone, Debug, Default)]
pub(crate) struct Vars {
    pub values: BTreeMap<String, String>,
    /// Check mode: names bound so far (values are unknown at load time).
    pub declared: Option<BTreeSet<String>>,
}

impl Vars {
    pub fn check_mode() -> Self {
        Vars {
            values: BTreeMap::new(),
            declared: Some(BTreeSet::new()),
        }
    }

    pub fn bind(&mut self, name: &str, value: String) {
        match &mut self.declared {
            Some(d) => {
                d.insert(name.to_string());
            }
            None => {
                self.values.insert(name.to_string(), value);
            }
        }
    }

    pub fn is_bound(&self, name: &str) -> bool {
        self.declared
            .as_ref()
            .map_or_else(|| self.values.contains_key(name), |d| d.contains(name))
    }

    /// `$NAME` -> its value; anything else is literal.
    pub fn resolve(&self, s: &str) -> Result<String, String> {
        let Some(name) = s.strip_prefix('$') else {
            return Ok(s.to_string());
        };
        if let Some(d) = &self.declared {
            return if d.contains(name) {
                Ok(format!("${name}"))
            } else {
                Err(format!("variable ${name} is used before any step binds it"))
            };
        }
        self.values
            .get(name)
            .cloned()
            .ok_or_else(|| format!("variable ${name} is not bound"))
    }

    /// A human form of a server value: `alloc-1 ($A)`.
    pub fn show(&self, v: &str) -> String {
        match self.values.iter().find(|(_, val)| val.as_str() == v) {
            Some((k, _)) => format!("{v} (${k})"),
            None => v.to_string(),
        }
    }
}

pub(crate) fn parse_requester(s: &str) -> Result<Requester, String> {
    let parts: Vec<&str> = s.split(':').collect();
    let rank = |p: Option<&&str>| -> Result<u32, String> {
        p.map_or(Ok(0), |r| {
            r.parse::<u32>()
                .map_err(|_| format!("bad rank {r:?} in requester {s:?}"))
        })
    };
    match parts.as_slice() {
        ["scheduler"] => Ok(Requester {
            kind: RequesterKind::Scheduler,
            nspace: "scheduler".into(),
            rank: 0,
        }),
        ["scheduler", ns] => Ok(Requester {
            kind: RequesterKind::Scheduler,
            nspace: ns.to_string(),
            rank: 0,
        }),
        ["tool", ns, rest @ ..] if !ns.is_empty() && rest.len() <= 1 => Ok(Requester {
            kind: RequesterKind::Tool,
            nspace: ns.to_string(),
            rank: rank(rest.first())?,
        }),
        ["app", ns, rest @ ..] if !ns.is_empty() && rest.len() <= 1 => Ok(Requester {
            kind: RequesterKind::App,
            nspace: ns.to_string(),
            rank: rank(rest.first())?,
        }),
        _ => Err(format!(
            "bad requester {s:?}: expected tool:NSPACE, app:NSPACE[:RANK] or scheduler"
        )),
    }
}

pub(crate) fn parse_directive(s: &str) -> Result<u8, String> {
    let name = s.trim().strip_prefix("PMIX_ALLOC_").unwrap_or(s.trim());
    Ok(match name {
        "NEW" => alloc_directive::NEW,
        "EXTEND" => alloc_directive::EXTEND,
        "RELEASE" => alloc_directive::RELEASE,
        "REAQUIRE" | "REACQUIRE" => alloc_directive::REAQUIRE,
        "REQ_CANCEL" => alloc_directive::REQ_CANCEL,
        n => n.parse::<u8>().map_err(|_| format!("unknown allocation directive {s:?} (NEW, EXTEND, RELEASE, REAQUIRE, REQ_CANCEL or a number)"))?,
    })
}

pub(crate) fn parse_status(s: &StatusSpec) -> Result<Status, String> {
    match s {
        StatusSpec::Code(c) => Ok(Status(*c)),
        StatusSpec::Name(n) => {
            crate::status::parse(n).ok_or_else(|| format!("unknown status {n:?}"))
        }
    }
}

fn parse_inherit(v: &toml::Value) -> Result<u8, String> {
    match v {
        toml::Value::Integer(i) => {
            u8::try_from(*i).map_err(|_| format!("ALLOC_INHERIT value {i} is out of range 0..=255"))
        }
        toml::Value::String(s) => {
            let n = s.strip_prefix("PMIX_ALLOC_INHERIT_").unwrap_or(s);
            attrs::AllocInherit::ALL
                .iter()
                .find(|a| attrs::alloc_inheritance_string(**a as u8) == n)
                .map(|a| *a as u8)
                .ok_or_else(|| format!("unknown inheritance {s:?} (NONE, CHILD, DEFAULT, CHILD_DEFAULT or a number)"))
        }
        other => Err(format!(
            "ALLOC_INHERIT needs a name or an integer, got {}",
            other.type_str()
        )),
    }
}

fn int<T: TryFrom<i64>>(v: &toml::Value, ty: DataType) -> Result<T, String> {
    match v {
        toml::Value::Integer(i) => T::try_from(*i).map_err(|_| format!("{i} does not fit {ty}")),
        other => Err(format!("{ty} needs an integer, got {}", other.type_str())),
    }
}

fn scalar(ty: DataType, v: &toml::Value, vars: &Vars) -> Result<Value, String> {
    Ok(match ty {
        DataType::BOOL => Value::Bool(
            v.as_bool()
                .ok_or_else(|| format!("BOOL needs true/false, got {}", v.type_str()))?,
        ),
        DataType::STRING => Value::string(
            &vars.resolve(
                v.as_str()
                    .ok_or_else(|| format!("STRING needs a string, got {}", v.type_str()))?,
            )?,
        ),
        DataType::UINT8 => Value::Uint8(int(v, ty)?),
        DataType::UINT16 => Value::Uint16(int(v, ty)?),
        DataType::UINT32 => Value::Uint32(int(v, ty)?),
        DataType::UINT64 => Value::Uint64(int(v, ty)?),
        DataType::UINT => Value::Uint(int(v, ty)?),
        DataType::SIZE => Value::Size(int(v, ty)?),
        DataType::INT => Value::Int(int(v, ty)?),
        DataType::INT32 => Value::Int32(int(v, ty)?),
        DataType::INT64 => Value::Int64(int(v, ty)?),
        DataType::ALLOC_INHERIT => Value::AllocInherit(parse_inherit(v)?),
        DataType::ALLOC_DIRECTIVE => Value::AllocDirective(match v {
            toml::Value::String(s) => parse_directive(s)?,
            _ => int(v, ty)?,
        }),
        DataType::STATUS => Value::Status(match v {
            toml::Value::String(s) => parse_status(&StatusSpec::Name(s.clone()))?.0,
            _ => int(v, ty)?,
        }),
        t => return Err(format!("type {t} is not supported in scenario info arrays")),
    })
}

/// Build a typed `pmix_info_t` from its scenario form.
pub(crate) fn build_info(spec: &InfoSpec, vars: &Vars) -> Result<Info, String> {
    let attr = attrs::attribute(&spec.key);
    let key = match attr {
        Some(a) => a.key.to_string(),
        None if spec.key.starts_with("PMIX_") => {
            return Err(format!(
                "unknown attribute macro {:?}; give its key string instead",
                spec.key
            ))
        }
        None if spec.key.is_empty() => return Err("empty info key".into()),
        None => spec.key.clone(),
    };
    let ty = match (&spec.ty, attr.and_then(|a| a.ty)) {
        (Some(t), _) => {
            DataType::parse(t).ok_or_else(|| format!("unknown data type {t:?} for {}", spec.key))?
        }
        (None, Some(t)) => t,
        (None, None) if spec.value.is_array() => DataType::DATA_ARRAY,
        (None, None) if spec.value.is_str() => DataType::STRING,
        (None, None) => return Err(format!("info {} needs a type", spec.key)),
    };
    let value = if ty == DataType::DATA_ARRAY {
        let elem = match &spec.elem {
            Some(e) => DataType::parse(e).ok_or_else(|| format!("unknown element type {e:?}"))?,
            None => DataType::STRING,
        };
        let items = spec
            .value
            .as_array()
            .ok_or_else(|| format!("DATA_ARRAY {} needs an array value", spec.key))?;
        let values = items
            .iter()
            .map(|v| scalar(elem, v, vars))
            .collect::<Result<Vec<_>, _>>()?;
        Value::array(elem, values)
    } else {
        scalar(ty, &spec.value, vars)?
    };
    Ok(Info {
        key: key.as_str().into(),
        flags: spec.flags,
        value,
    })
}
