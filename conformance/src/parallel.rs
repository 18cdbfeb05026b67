//! A small scoped parallel map, for work that splits into independent pieces (parsing vector
//! files, replaying groups of them): the results come back in the order of the inputs, so a
//! parallel run reports exactly what a serial one would.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The number of threads this machine runs at once (1 when it cannot say).
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f` applied to every item of `items`, on up to `threads` threads, the results in the order
/// of `items`. Each thread takes the next unclaimed item until none is left, so unequal items
/// (files of very different sizes) still share out evenly. With `threads` 1 (or one item) it
/// runs on the calling thread and spawns none. A panic in `f` is re-raised here.
pub fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let mut results: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        let mut all = Vec::with_capacity(items.len());
        for h in handles {
            match h.join() {
                Ok(done) => all.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_whatever_the_thread_count() {
        let items: Vec<u64> = (0..1000).collect();
        let square = |x: &u64| x * x;
        let serial: Vec<u64> = items.iter().map(square).collect();
        for threads in [0, 1, 2, 3, 8, 5000] {
            assert_eq!(
                map_in_order(&items, threads, square),
                serial,
                "{threads} threads"
            );
        }
        assert!(map_in_order(&[] as &[u64], 4, square).is_empty());
    }

    #[test]
    fn every_item_is_mapped_exactly_once() {
        let calls = AtomicUsize::new(0);
        let items: Vec<usize> = (0..257).collect();
        let out = map_in_order(&items, 4, |x| {
            calls.fetch_add(1, Ordering::Relaxed);
            *x
        });
        assert_eq!(calls.load(Ordering::Relaxed), items.len());
        assert_eq!(out, items);
    }

    #[test]
    #[should_panic(expected = "item 7")]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let items: Vec<usize> = (0..20).collect();
        map_in_order(&items, 3, |x| assert!(*x != 7, "item {x}"));
    }
}
