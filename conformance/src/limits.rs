//! When a vector run stops early: `--max-errors N`, `--max-timeouts N`.

/// When a run stops early (`--max-errors`, `--max-timeouts`): a testee that hangs or dies on
/// every case would otherwise cost the per-case timeout or a restart for each of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Stop once this many cases ended in an error (crash, timeout, garbage, start,
    /// runtime-error, bad-reply), counted before the expected-failure list is applied.
    pub max_errors: Option<usize>,
    /// Stop once this many cases timed out.
    pub max_timeouts: Option<usize>,
}

impl Limits {
    /// Why a run with these counts must stop now, if it must.
    pub fn reached(&self, errors: usize, timeouts: usize) -> Option<String> {
        if let Some(n) = self.max_timeouts.filter(|n| timeouts >= *n) {
            return Some(format!("{timeouts} cases timed out (--max-timeouts {n})"));
        }
        if let Some(n) = self.max_errors.filter(|n| errors >= *n) {
            return Some(format!(
                "{errors} cases ended in an error (--max-errors {n})"
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_say_which_was_reached() {
        let none = Limits::default();
        assert_eq!(none.reached(1000, 1000), None);
        let l = Limits {
            max_errors: Some(5),
            max_timeouts: Some(2),
        };
        assert_eq!(l.reached(4, 1), None);
        assert!(l.reached(5, 0).unwrap().contains("--max-errors 5"));
        assert!(l.reached(2, 2).unwrap().contains("--max-timeouts 2"));
    }
}
