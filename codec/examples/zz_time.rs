#[path = "../benches/support/workloads.rs"]
mod workloads;
use pmix_codec::*;
use std::time::Instant;
fn main() {
    let w = match std::env::args().nth(1).as_deref() {
        Some("info") => workloads::Workload::Info,
        Some("bytes") => workloads::Workload::Bytes,
        _ => workloads::Workload::Proc,
    };
    let comp: Component = std::env::args()
        .nth(2)
        .unwrap_or("v41".into())
        .parse()
        .unwrap();
    let codec = Codec::new(comp, BufferKind::NonDescribed).with_release(Release::OpenPmix4_2);
    let item = w.item();
    let wire = Bytes::from(codec.encode(std::slice::from_ref(&item)).unwrap());
    let types = [w.ty()];
    for (name, shared) in [("shared", true), ("borrowed", false)] {
        let mut best = f64::MAX;
        for _ in 0..300 {
            let t = Instant::now();
            let out = if shared {
                codec.decode(&wire, &types)
            } else {
                codec.decode(&wire[..], &types)
            };
            let d = t.elapsed().as_secs_f64();
            std::hint::black_box(&out);
            drop(out);
            best = best.min(d);
        }
        println!(
            "{name}: {:.0} MB/s, {:.1} ns/value",
            wire.len() as f64 / best / 1e6,
            best * 1e9 / item.values.len() as f64
        );
    }
}
