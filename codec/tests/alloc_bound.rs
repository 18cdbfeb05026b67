//! Resource bound: decoding n bytes never allocates more than O(n), whatever the counts
//! and lengths in the input claim. Measured with a counting global allocator.

use pmix_codec::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Ordering::SeqCst) + l.size();
        PEAK.fetch_max(now, Ordering::SeqCst);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::SeqCst);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Peak bytes allocated while decoding (beyond what was live before).
fn peak_during(f: impl FnOnce()) -> usize {
    let base = LIVE.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    f();
    PEAK.load(Ordering::SeqCst) - base
}

fn flex(v: u64) -> Vec<u8> {
    let mut b = Vec::new();
    pmix_codec::wire::put_flex(&mut b, v);
    b
}

#[test]
fn decoding_allocates_in_proportion_to_the_input() {
    let big = flex(u64::MAX >> 1);
    let big32 = flex(pmix_codec::wire::zigzag(i32::MAX as i64));
    // (type, bytes): every place a count or length sizes something
    let mut cases: Vec<(DataType, Vec<u8>)> = vec![
        (DataType::STRING, [&big32[..], &big32[..], b"abc"].concat()),
        (
            DataType::BYTE_OBJECT,
            [&big32[..], &big[..], b"abc"].concat(),
        ),
        (
            DataType::DATA_ARRAY,
            [&big32[..], &[0x0a][..], &big[..]].concat(),
        ),
        (
            DataType::DATA_ARRAY,
            [&big32[..], &[0x1f][..], &big[..], &[1][..]].concat(),
        ),
        (
            DataType::DATA_ARRAY,
            [&big32[..], &[0x27][..], &big[..], &[0x27, 1, 0x27, 1][..]].concat(),
        ),
        (DataType::QUERY, [&big32[..], &big32[..]].concat()),
        (DataType::APP, [&[0x02, 0x00][..], &big32[..]].concat()),
        (DataType::COORD, [&[0x02, 0x01][..], &big[..]].concat()),
        (
            DataType::GEOMETRY,
            [&[0x02, 0x01, 0x00, 0x00][..], &big[..]].concat(),
        ),
        (
            DataType::REGATTR,
            [&[0x02, 0x00, 0x04, b'k', 0, 0x06][..], &big32[..]].concat(),
        ),
        (DataType::POINTER, [&big32[..], &[1][..]].concat()),
        // a DATA_ARRAY of DATA_ARRAY whose count (2^31 - 1) lies, with real inner arrays
        // (UINT8, count 0) after it: read one by one until the input runs out
        (
            DataType::DATA_ARRAY,
            [
                &big32[..],
                &[0x27][..],
                &flex((1 << 31) - 1),
                &[0x0c, 0].repeat(64),
            ]
            .concat(),
        ),
        // a DATA_ARRAY of POINTER with a lying count and no sentinel byte
        (
            DataType::DATA_ARRAY,
            [&big32[..], &[0x1f][..], &big[..]].concat(),
        ),
        (DataType::INFO, [&big32[..]].concat()),
    ];
    // and a long run of lying records
    for t in [DataType::UINT64, DataType::STRING, DataType::PROC] {
        cases.push((t, [&big32[..], &[0xff; 64][..]].concat()));
    }
    let codec = Codec::new(Component::V61, BufferKind::NonDescribed);
    for (ty, bytes) in &cases {
        let n = bytes.len();
        let peak = peak_during(|| {
            let _ = codec.decode(bytes, &[*ty]);
        });
        // generous constant factor for the Value tree; the point is no count-sized buffer
        assert!(
            peak <= 4096 + 256 * n,
            "{ty}: {n} input bytes made the decoder allocate {peak} bytes"
        );
    }
    // converged family (be32 counts) too
    let v3 = Codec::new(Component::V3, BufferKind::NonDescribed);
    let lying = [0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 1, 2];
    for ty in [
        DataType::STRING,
        DataType::INFO,
        DataType::APP,
        DataType::UINT32,
    ] {
        let peak = peak_during(|| {
            let _ = v3.decode(&lying, &[ty]);
        });
        assert!(
            peak <= 4096 + 256 * lying.len(),
            "v3 {ty}: allocated {peak}"
        );
    }
}
