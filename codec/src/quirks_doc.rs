//! The quirk table ([`crate::quirks::QUIRKS`]) rendered for readers: `QUIRKS.md` at the
//! repository root (generated from here; a test fails when it is stale), the text and JSON
//! of `pmix-wire quirks [ID]`.

use crate::quirks::{Quirk, QuirkKind, QUIRKS};
use serde_json::{json, Value as J};

/// The file and test that cover a quirk (`codec/tests/quirks.rs` has one test per entry,
/// named after the id; `every_quirk_has_its_own_test` enforces it).
pub fn covering_test(q: &Quirk) -> String {
    format!(
        "codec/tests/quirks.rs::{}",
        q.id.to_lowercase().replace('-', "_")
    )
}

/// A short name for the kind of quirk.
pub fn kind_name(k: QuirkKind) -> &'static str {
    match k {
        QuirkKind::SelfInconsistent => "self-inconsistent (packs one way, unpacks another)",
        QuirkKind::ReleaseDifference => "release difference (selectable by release profile)",
        QuirkKind::UpstreamBug => "upstream bug (we define sane behaviour)",
        QuirkKind::Legacy => "legacy encoding oddity (reproduced byte for byte)",
    }
}

/// The entry whose id is `id` or starts with `id` followed by `-` (case-insensitive), so
/// `D1` finds `D1-datatype-zigzag`. `Err` names every valid id.
pub fn find(id: &str) -> Result<&'static Quirk, String> {
    let want = id.to_ascii_lowercase();
    QUIRKS
        .iter()
        .find(|q| {
            let have = q.id.to_ascii_lowercase();
            have == want || have.starts_with(&format!("{want}-"))
        })
        .ok_or_else(|| {
            format!(
                "unknown quirk {id:?} (valid ids: {})",
                QUIRKS.iter().map(|q| q.id).collect::<Vec<_>>().join(" ")
            )
        })
}

/// One entry as plain text.
pub fn text(q: &Quirk) -> String {
    format!(
        "{}\n  kind:       {}\n  components: {}\n  releases:   {}\n  OpenPMIx:   {}\n  our choice: {}\n  test:       {}\n",
        q.id,
        kind_name(q.kind),
        q.components,
        q.releases.join(" "),
        q.openpmix,
        q.chosen,
        covering_test(q)
    )
}

/// One entry as JSON.
pub fn json(q: &Quirk) -> J {
    json!({
        "id": q.id,
        "kind": format!("{:?}", q.kind),
        "components": q.components,
        "releases": q.releases,
        "openpmix": q.openpmix,
        "chosen": q.chosen,
        "test": covering_test(q),
    })
}

/// The whole of `QUIRKS.md`.
pub fn markdown() -> String {
    let mut s = String::from(
        "# OpenPMIx wire-format quirks\n\n\
         <!-- Generated from codec/src/quirks.rs by codec/src/quirks_doc.rs; do not edit.\n     \
         Regenerate: PMIX_WIRE_BLESS=1 cargo test --release -p pmix-codec --test quirks_md -->\n\n\
         Behaviour of the real OpenPMIx that a conforming implementation must know about: what\n\
         the library does, which releases do it, what pmix-codec does about it, and the test\n\
         that pins it against bytes the library recorded. Vector comments and conformance\n\
         reports name these ids; `pmix-wire quirks ID` prints one entry.\n\n\
         | id | kind | components | releases |\n|---|---|---|---|\n",
    );
    for q in QUIRKS {
        s.push_str(&format!(
            "| [{}](#{}) | {:?} | {} | {} |\n",
            q.id,
            q.id.to_lowercase(),
            q.kind,
            q.components,
            q.releases.join(" ")
        ));
    }
    for q in QUIRKS {
        s.push_str(&format!(
            "\n## {}\n\n- **Kind:** {}\n- **Components:** {}\n- **Releases:** {}\n- **OpenPMIx:** {}\n- **Our choice:** {}\n- **Test:** `{}`\n",
            q.id,
            kind_name(q.kind),
            q.components,
            q.releases.join(" "),
            q.openpmix,
            q.chosen,
            covering_test(q)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_by_prefix_and_unknown_ids_name_the_valid_ones() {
        assert_eq!(find("d1").unwrap().id, "D1-datatype-zigzag");
        assert_eq!(find("D1-datatype-zigzag").unwrap().id, "D1-datatype-zigzag");
        let e = find("Z9").unwrap_err();
        for q in QUIRKS {
            assert!(e.contains(q.id), "{e}");
        }
        let t = text(find("D1").unwrap());
        assert!(
            t.contains("test:       codec/tests/quirks.rs::d1_datatype_zigzag"),
            "{t}"
        );
    }
}
