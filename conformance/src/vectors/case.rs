//! The cases of a vector set: their stable ids and the sentence each one checks.

use super::*;

/// One case: a vector of a set.
#[derive(Clone, Debug)]
pub struct Case<'a> {
    /// The stable id.
    pub id: String,
    /// The sentence the case checks.
    pub requirement: String,
    /// The file it comes from.
    pub set: &'a VectorSet,
    /// The vector.
    pub vector: &'a Vector,
}

/// The cases of `sets`, in file order, keeping those whose id contains `filter` (if any).
pub fn cases<'a>(sets: &'a [VectorSet], filter: Option<&str>) -> Vec<Case<'a>> {
    let mut out = Vec::new();
    for set in sets {
        for v in &set.file.tests {
            let id = case_id(set, v);
            if filter.is_some_and(|f| !id.contains(f)) {
                continue;
            }
            out.push(Case {
                requirement: requirement(set, v),
                id,
                set,
                vector: v,
            });
        }
    }
    out
}

fn type_label(j: &J) -> String {
    match j {
        J::String(s) => DataType::parse(s)
            .and_then(|t| t.name().map(str::to_string))
            .unwrap_or_else(|| s.replace(['.', ' '], "_")),
        J::Number(n) => n
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .map(|n| {
                DataType(n)
                    .name()
                    .map(str::to_string)
                    .unwrap_or_else(|| n.to_string())
            })
            .unwrap_or_else(|| "?".into()),
        _ => "?".into(),
    }
}

pub(super) fn item_types(items: &J) -> Vec<&J> {
    items
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i.get("type").unwrap_or(&J::Null))
                .collect()
        })
        .unwrap_or_default()
}

fn result_name(v: &Vector) -> &'static str {
    match v.result {
        vf::Outcome::Valid => "valid",
        vf::Outcome::Invalid => "invalid",
        vf::Outcome::Acceptable => "acceptable",
    }
}

/// The id of vector `v` of `set`.
pub fn case_id(set: &VectorSet, v: &Vector) -> String {
    let types: Vec<String> = item_types(&v.items).into_iter().map(type_label).collect();
    let t = match types.len() {
        0 => "empty".to_string(),
        1..=3 => types.join("+"),
        n => format!("{}+{}more", types[0], n - 1),
    };
    format!("{}.{t}.{}.{}", set.prefix, result_name(v), v.id)
}

fn calls_phrase(items: &J, with_counts: bool) -> String {
    let Some(a) = items.as_array() else {
        return "?".into();
    };
    if a.is_empty() {
        return "no calls".into();
    }
    let one = |i: &J| {
        let t = type_label(i.get("type").unwrap_or(&J::Null));
        let n = i.get("values").and_then(J::as_array).map_or(0, Vec::len);
        if with_counts {
            format!("{t} ×{n}")
        } else {
            t
        }
    };
    let mut parts: Vec<String> = a.iter().take(4).map(one).collect();
    if a.len() > 4 {
        parts.push(format!("… {} calls in all", a.len()));
    }
    parts.join(", ")
}

pub(super) fn status_text(status: i32, item: usize) -> String {
    match Status(status).name() {
        Some(n) => format!("PMIX_{n} ({status}) at call {item}"),
        None => format!("status {status} at call {item}"),
    }
}

/// The sentence vector `v` of `set` checks.
pub fn requirement(set: &VectorSet, v: &Vector) -> String {
    let buf = format!("a {} {} buffer", set.kind, set.component);
    let calls = calls_phrase(&v.items, true);
    let what = match (&v.result, &v.error) {
        (vf::Outcome::Invalid, Some(e)) if e.phase == Phase::Encode => format!(
            "Packing [{calls}] into {buf} is refused with {}",
            status_text(e.status, e.item)
        ),
        (vf::Outcome::Invalid, Some(e))
            if json::items_from_json(&v.items)
                .is_ok_and(|items| super::check::packed_bytes_judged(set, v, &items)) =>
        {
            format!(
                "Packing [{calls}] into {buf}, if it is not refused, gives exactly the recorded {} bytes, \
                 and unpacking them fails with {}",
                v.wire.len() / 2,
                status_text(e.status, e.item)
            )
        }
        (vf::Outcome::Invalid, Some(e)) => format!(
            "Unpacking these {} bytes from {buf} as [{}] fails with {}",
            v.wire.len() / 2,
            calls_phrase(&v.items, false),
            status_text(e.status, e.item)
        ),
        (vf::Outcome::Invalid, None) => "An invalid vector without an error (malformed)".into(),
        (r, _) => {
            let back = if v.decoded.is_some() {
                "the values the library reads back (lossy)"
            } else {
                "the same values"
            };
            let quirk = if *r == vf::Outcome::Acceptable {
                " [acceptable: OpenPMIx behaviour another implementation may not share]"
            } else {
                ""
            };
            format!(
                "Packing [{calls}] into {buf} gives exactly the recorded {} bytes, which unpack to {back}{quirk}",
                v.wire.len() / 2
            )
        }
    };
    format!("{what} ({}; release {})", v.comment, set.release)
}
