#[path = "../benches/support/workloads.rs"]
mod workloads;
use pmix_codec::*;
use std::time::Instant;
fn main() {
    let w = match std::env::args().nth(1).as_deref() {
        Some("info") => workloads::Workload::Info,
        _ => workloads::Workload::Proc,
    };
    let comp: Component = std::env::args()
        .nth(2)
        .unwrap_or("v41".into())
        .parse()
        .unwrap();
    let codec = Codec::new(comp, BufferKind::NonDescribed).with_release(Release::OpenPmix4_2);
    let items = [w.item()];
    let mut best = f64::MAX;
    let mut len = 0;
    for _ in 0..300 {
        let t = Instant::now();
        let out = codec.encode(&items).unwrap();
        let d = t.elapsed().as_secs_f64();
        len = out.len();
        std::hint::black_box(&out);
        drop(out);
        best = best.min(d);
    }
    println!(
        "encode: {:.0} MB/s, {:.1} ns/value",
        len as f64 / best / 1e6,
        best * 1e9 / items[0].values.len() as f64
    );
}
