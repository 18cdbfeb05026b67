//! The memory check of `pmix-wire inspect`: refuse with `PMIX_ERR_NOMEM` before building
//! what does not fit, instead of aborting halfway.
//!
//! A dissection keeps every field the decoder reports (a tree node, a line, its JSON), a few
//! hundred bytes per field whatever the field's wire size, so a dense 64 MiB message needs
//! tens of GB. Its allocations are ordinary (infallible) ones, so the check comes first: a
//! [`Tally`] pass runs the same observed decode keeping nothing but counts (its values are
//! the codec's, whose allocations are fallible: a message whose values do not fit is refused
//! there, with the codec's own status and offset), [`dissection_need`] turns the counts into
//! an upper bound of the dissection's peak heap, and [`reserve_or_nomem`] asks the allocator
//! for that much, fallibly, and gives it back. Under an address-space limit (`ulimit -v`)
//! the reservation fails exactly when the dissection could not be built.

use crate::Failure;
use pmix_codec::observe::{Field as Event, Meaning, Observer, Path};
use pmix_codec::Status;

/// What a dissection will hold, counted by an observed decode that keeps nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Fields reported.
    pub fields: usize,
    /// Structures opened.
    pub structures: usize,
    /// Path steps over all fields and structures (each node keeps its own path).
    pub steps: usize,
    /// Bytes of text fields (kept as read, and printed quoted).
    pub text: usize,
}

impl Observer for Tally {
    fn field(&mut self, f: &Event<'_>) {
        self.fields += 1;
        self.steps += f.path.0.len();
        if let Meaning::Text { text } = f.meaning {
            self.text += text.len();
        }
    }
    fn open(&mut self, _offset: usize, path: Path<'_>) {
        self.structures += 1;
        self.steps += path.0.len();
    }
}

/// Heap bytes per node of the dissection at its peak, text output: the tree node, its line
/// (`Field`), the printed text, and the slack of growing vectors. Measured (peak RSS over
/// nodes) at about 890 bytes per node for a dense UINT8 call (1M values) and 460 for INFOs
/// (100k infos, 7 nodes each); the bound keeps a margin over the worst.
pub const NODE_BYTES_TEXT: usize = 1024;
/// The same with `--json`: the JSON tree (an object of six to eight entries per node) and
/// its pretty text. Measured at about 4,850 bytes per node (UINT8) and 2,650 (INFO).
pub const NODE_BYTES_JSON: usize = 6144;
/// Heap bytes per path step (a `Seg`, 24 bytes, with slack).
pub const STEP_BYTES: usize = 48;

/// An upper bound of the peak heap of dissecting a message of `input` bytes whose observed
/// decode reported `t` (`json`: `inspect --json`).
pub fn dissection_need(t: &Tally, input: usize, json: bool) -> usize {
    let per_node = if json {
        NODE_BYTES_JSON
    } else {
        NODE_BYTES_TEXT
    };
    let nodes = t.fields.saturating_add(t.structures);
    nodes
        .saturating_mul(per_node)
        .saturating_add(t.steps.saturating_mul(STEP_BYTES))
        // text is kept once and printed quoted (up to 4 bytes per byte)
        .saturating_add(t.text.saturating_mul(6))
        // every input byte is shown as hex at most once, 3 characters
        .saturating_add(input.saturating_mul(4))
}

/// `Ok` when `need` bytes can be allocated now (a fallible reservation, given back at
/// once); else `PMIX_ERR_NOMEM` saying what needed how much.
pub fn reserve_or_nomem(need: usize, what: &str) -> Result<(), Failure> {
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(need).map_err(|_| {
        Failure::Status(
            Status(-32),
            format!(
                "{what} needs about {} MiB of memory, more than this process can allocate \
                 (`decode -o index` reads a message of any size in at most a few times its size)",
                need.div_ceil(1 << 20)
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_need_is_refused_with_nomem_and_a_small_one_is_not() {
        assert!(reserve_or_nomem(1 << 20, "x").is_ok());
        match reserve_or_nomem(usize::MAX / 2, "inspect") {
            Err(Failure::Status(s, why)) => {
                assert_eq!(s, Status(-32));
                assert!(why.contains("inspect needs about"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        let t = Tally {
            fields: 10,
            structures: 2,
            steps: 30,
            text: 5,
        };
        assert!(dissection_need(&t, 100, true) > dissection_need(&t, 100, false));
        let huge = Tally {
            fields: usize::MAX,
            ..t
        };
        assert_eq!(dissection_need(&huge, 1, false), usize::MAX);
    }
}
