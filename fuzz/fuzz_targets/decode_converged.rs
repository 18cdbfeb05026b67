//! Decode arbitrary bytes with a converged component (header: see `pmix_fuzz::parse_case`):
//! no panic, no over-read, error offsets inside the input, memory O(n), bounded stack, and
//! whatever decodes re-encodes to a canonical fixpoint.
#![no_main]
use libfuzzer_sys::fuzz_target;

#[global_allocator]
static A: pmix_fuzz::Counting = pmix_fuzz::Counting;

fuzz_target!(|data: &[u8]| {
    if let Some(case) = pmix_fuzz::parse_case(pmix_fuzz::CONVERGED, data) {
        pmix_fuzz::check_decode(&case);
    }
});
