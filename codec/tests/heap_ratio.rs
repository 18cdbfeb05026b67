//! Peak heap of decoding the hostile classes (`codec/benches/support/hostile.rs`, the same
//! inputs `pmix-bench` reports), measured with a counting global allocator.
//!
//! A lying count costs almost nothing (reservations come from evidence). Dense valid
//! inputs cost what their values weigh: one [`Value`] (48 bytes) per value, so a run of
//! one-byte values peaks near 48x the input and a nest of boxed containers higher; the
//! issue's 16x target is not met by this data model (see README "Performance").

#[path = "../benches/support/hostile.rs"]
mod hostile;

use pmix_codec::{Bytes, Value};
#[path = "../benches/support/counting.rs"]
mod counting;

#[global_allocator]
static A: counting::Counting = counting::Counting;

#[test]
fn hostile_classes_stay_within_their_bounds() {
    let size = 256 * 1024;
    let mut report = Vec::new();
    for h in hostile::classes(size) {
        let input = Bytes::from(h.bytes.clone());
        let (result, peak) =
            counting::peak_during(|| h.codec.decode_calls(&input, &[(h.ty, usize::MAX)]));
        drop(result);
        let ratio = peak as f64 / input.len() as f64;
        // lying counts: refused, having reserved next to nothing
        let bound = if h.lying {
            1.0
        } else {
            // two Values per input byte at most (a VALUE's box, an array's element), and
            // for nests the boxes of every level
            128.0
        };
        report.push(format!("{}: {ratio:.2}x (bound {bound}x)", h.name));
        assert!(
            ratio <= bound,
            "{}: peak heap {peak} bytes for {} input bytes ({ratio:.2}x > {bound}x)",
            h.name,
            input.len()
        );
    }
    assert!(std::mem::size_of::<Value>() <= 48);
    eprintln!("{}", report.join("\n"));
}
