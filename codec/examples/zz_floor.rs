use pmix_codec::*;
use std::time::Instant;
fn main() {
    let n = 10_000;
    let keys: Vec<String> = (0..n).map(|i| format!("pmix.job.key.{i:05}")).collect();
    let mut best = f64::MAX;
    for _ in 0..300 {
        let t = Instant::now();
        let mut v: Vec<Value> = Vec::with_capacity(n);
        for (i, k) in keys.iter().enumerate() {
            v.push(Value::Info(Box::new(Info {
                key: Text::copy_from(k.as_bytes()),
                flags: 0,
                value: Value::Uint32(i as u32),
            })));
        }
        let d = t.elapsed().as_secs_f64();
        std::hint::black_box(&v);
        drop(v);
        best = best.min(d);
    }
    println!(
        "floor: {:.1} ns per INFO (alloc + build + push)",
        best * 1e9 / n as f64
    );
}
