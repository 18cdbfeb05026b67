//! Show what a decode-target input is: its codec, unpack calls and buffer, what the codec
//! decodes, and the heap it needs (without libFuzzer or sanitizers).
//!
//!     cargo run --release --features seedgen --bin replay -- <legacy|converged|modern|differential> <file>...
use pmix_fuzz::*;

#[global_allocator]
static A: Counting = Counting;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let comps = match args.first().map(String::as_str) {
        Some("legacy" | "decode_legacy") => LEGACY,
        Some("converged" | "decode_converged") => CONVERGED,
        Some("modern" | "decode_modern") => MODERN,
        Some("differential") => DIFFERENTIAL,
        _ => {
            eprintln!("usage: replay <legacy|converged|modern|differential> <file>...");
            std::process::exit(2);
        }
    };
    for path in &args[1..] {
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let Some(case) = parse_case(comps, &data) else {
            println!("{path}: too short for a header");
            continue;
        };
        let c = case.codec;
        println!(
            "{path}\n  codec   {} {} {} as_written={} discover={}\n  calls   {:?}\n  bytes   {} ({} bytes)",
            c.component,
            c.kind,
            c.release,
            c.options.as_written,
            case.discover,
            case.calls,
            hex(case.bytes),
            case.bytes.len()
        );
        let (res, peak) = peak_during(|| c.decode_calls(case.bytes, &case.calls));
        match &res {
            Ok(items) => println!("  decoded {}", short(items, 3000)),
            Err((e, partial)) => println!("  error   {e}\n  before  {}", short(partial, 3000)),
        }
        println!(
            "  peak heap {peak} bytes (bound {})",
            alloc_bound(case.bytes.len())
        );
    }
}
