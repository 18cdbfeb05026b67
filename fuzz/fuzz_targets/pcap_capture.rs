//! The capture reader and dissector (`pmix-pcap`) on arbitrary bytes: no panic, every
//! event renders in all three forms, and the bytes held stay within the limits plus the
//! one record being read. The first byte picks `--component` (mid-stream joins) or none.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pmix_codec::{BufferKind, Component};
use pmix_pcap::{report, Event, Options};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, capture)) = data.split_first() else {
        return;
    };
    let opts = Options {
        component: Component::ALL.get(pick as usize % 10).copied(),
        kind: BufferKind::ALL[(pick as usize >> 4) & 1],
        max_frame: 1 << 16,
        max_connections: 64,
        max_buffered: 1 << 20,
        max_waiting: 1 << 16,
        ..Options::default()
    };
    let limit = opts.max_buffered as u64 + 2 * capture.len() as u64 + (1 << 17);
    let mut sink = |e: Event| {
        let _ = report::tree(&e);
        let _ = report::summary(&e);
        let _ = e.to_json().to_string();
        if let Event::Stats(s) = &e {
            assert!(s.peak_held <= limit, "held {} > {limit}", s.peak_held);
        }
    };
    let _ = pmix_pcap::dissect(capture, opts, &mut sink);
});
