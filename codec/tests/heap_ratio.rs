//! Peak heap of the hostile classes (`codec/benches/support/hostile.rs`, the same inputs
//! `pmix-bench` reports), measured with a counting global allocator.
//!
//! A view (`Codec::view`) keeps no value: its peak is its index, four bytes per top-level
//! value, and stays within 16x the input for every class (the bound; in practice
//! under 5x). A decode holds every value (a [`Value`] is 48 bytes): a run of one-byte
//! records peaks near 48x the input and a nest of boxed containers higher, which is why the
//! README sends a receiver with a memory budget to the view. A lying count costs almost
//! nothing either way (reservations come from evidence).

#[path = "../benches/support/hostile.rs"]
mod hostile;

use pmix_codec::{Bytes, Value};
#[path = "../benches/support/counting.rs"]
mod counting;

#[global_allocator]
static A: counting::Counting = counting::Counting;

/// The bound on a view's peak heap, as a multiple of the input.
const VIEW_BOUND: f64 = 16.0;

#[test]
fn hostile_classes_stay_within_their_bounds() {
    let size = 256 * 1024;
    let mut report = Vec::new();
    for h in hostile::classes(size) {
        let input = Bytes::from(h.bytes.clone());
        let calls = [(h.ty, usize::MAX)];
        let (result, peak) = counting::peak_during(|| h.codec.decode_calls(&input, &calls));
        let decoded = result.is_ok();
        drop(result);
        let (view, view_peak) = counting::peak_during(|| h.codec.view(&input, &calls));
        // the view fails exactly where decode fails (codec/tests/view.rs checks how)
        assert_eq!(view.is_ok(), decoded, "{}", h.name);
        drop(view);
        let ratio = peak as f64 / input.len() as f64;
        let view_ratio = view_peak as f64 / input.len() as f64;
        // lying counts: refused, having reserved next to nothing
        let bound = if h.lying {
            1.0
        } else {
            // two Values per input byte at most (a VALUE's box, an array's element), and
            // for nests the boxes of every level
            128.0
        };
        report.push(format!(
            "{}: decode {ratio:.2}x (bound {bound}x), view {view_ratio:.2}x (bound {VIEW_BOUND}x)",
            h.name
        ));
        assert!(
            ratio <= bound,
            "{}: decode peak heap {peak} bytes for {} input bytes ({ratio:.2}x > {bound}x)",
            h.name,
            input.len()
        );
        assert!(
            view_ratio <= VIEW_BOUND,
            "{}: view peak heap {view_peak} bytes for {} input bytes ({view_ratio:.2}x > {VIEW_BOUND}x)",
            h.name,
            input.len()
        );
    }
    assert!(std::mem::size_of::<Value>() <= 48);
    eprintln!("{}", report.join("\n"));
}
