//! criterion benchmarks: encode and decode of the shared workloads
//! (`benches/support/workloads.rs`) in v3, v41 and v61, both buffer kinds, through the
//! allocating entry points (`encode`, `decode`) and the reusing ones (`encode_into`,
//! `decode_into`, called again with the previous call's buffer or items); for byte objects
//! also `Packer::pack_byte_objects` (payloads from the caller's slices) and
//! `Unpacker::unpack_byte_objects` (payloads borrowed from the input).
//!
//! ```sh
//! cargo bench -p pmix-codec --bench codec                 # everything (about 4 minutes)
//! cargo bench -p pmix-codec --bench codec -- 'info/v41/nd' # one group
//! ```
//!
//! Throughput is wire bytes. The side-by-side comparison with libpmix is `pmix-bench`
//! (`tools/bench/README.md`).

#[path = "support/workloads.rs"]
mod workloads;

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use pmix_codec::{BufferKind, Codec, Component, Value};
use std::hint::black_box;
use std::time::Duration;
use workloads::Workload;

fn kind_name(kind: BufferKind) -> &'static str {
    match kind {
        BufferKind::NonDescribed => "nd",
        BufferKind::FullyDescribed => "fd",
    }
}

fn codec_benches(c: &mut Criterion) {
    for w in Workload::ALL {
        let item = w.item();
        let items = std::slice::from_ref(&item);
        let types = [w.ty()];
        for comp in [Component::V3, Component::V41, Component::V61] {
            for kind in BufferKind::ALL {
                let codec = Codec::new(comp, kind);
                let bytes = codec.encode(items).expect("workload encodes");
                let mut g = c.benchmark_group(format!("{}/{comp}/{}", w.name(), kind_name(kind)));
                g.throughput(Throughput::Bytes(bytes.len() as u64));
                if w == Workload::Proc {
                    g.sampling_mode(SamplingMode::Flat); // ~10 ms per call
                }
                g.bench_function(BenchmarkId::from_parameter("encode"), |b| {
                    b.iter_with_large_drop(|| codec.encode(black_box(items)).unwrap())
                });
                g.bench_function(BenchmarkId::from_parameter("decode"), |b| {
                    b.iter_with_large_drop(|| codec.decode(black_box(&bytes), &types).unwrap())
                });
                let mut buf = Vec::new();
                g.bench_function(BenchmarkId::from_parameter("encode_into"), |b| {
                    b.iter(|| codec.encode_into(black_box(items), &mut buf).unwrap())
                });
                let mut out = Vec::new();
                g.bench_function(BenchmarkId::from_parameter("decode_into"), |b| {
                    b.iter(|| {
                        codec
                            .decode_into(black_box(&bytes), &types, &mut out)
                            .unwrap()
                    })
                });
                if w == Workload::Bytes {
                    let objects: Vec<&[u8]> = item
                        .values
                        .iter()
                        .filter_map(|v| match v {
                            Value::ByteObject(b) => Some(&b[..]),
                            _ => None,
                        })
                        .collect();
                    let mut packed = Vec::new();
                    g.bench_function(BenchmarkId::from_parameter("pack_byte_objects"), |b| {
                        b.iter(|| {
                            packed.clear();
                            codec
                                .packer(&mut packed)
                                .pack_byte_objects(black_box(&objects))
                                .unwrap()
                        })
                    });
                    let mut slices = Vec::new();
                    g.bench_function(BenchmarkId::from_parameter("unpack_byte_objects"), |b| {
                        b.iter(|| {
                            codec
                                .unpacker(black_box(&bytes))
                                .unpack_byte_objects(usize::MAX, &mut slices)
                                .unwrap()
                        })
                    });
                }
                g.finish();
            }
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1000));
    targets = codec_benches
}
criterion_main!(benches);
