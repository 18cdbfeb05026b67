//! A counting global allocator: the peak heap of a closure, for `pmix-bench` and
//! `codec/tests/heap_ratio.rs` (each includes this file with `#[path]` and installs
//! `Counting` as its `#[global_allocator]`). Counting is off outside
//! `peak_during`, where it costs one relaxed load per allocation.

#![allow(dead_code)]
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// The allocator: `System`, counting live bytes while `peak_during` runs.
pub struct Counting;
static ON: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if ON.load(Relaxed) {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if ON.load(Relaxed) {
            // frees of blocks allocated before counting began may take LIVE below zero
            let _ = LIVE.fetch_update(Relaxed, Relaxed, |v| Some(v.saturating_sub(l.size())));
        }
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if ON.load(Relaxed) {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Relaxed) + new - l.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                let _ =
                    LIVE.fetch_update(Relaxed, Relaxed, |v| Some(v.saturating_sub(l.size() - new)));
            }
        }
        unsafe { System.realloc(p, l, new) }
    }
}

/// Run `f`; the most bytes it had allocated at once (everything it allocated and
/// had not freed, including what it returns).
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    ON.store(true, Relaxed);
    let out = f();
    ON.store(false, Relaxed);
    (out, PEAK.load(Relaxed))
}
