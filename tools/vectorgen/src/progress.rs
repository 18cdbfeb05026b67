//! The progress bar of a regeneration.

use std::io::{IsTerminal, Write};
use std::time::Instant;

/// A small stderr progress bar (redrawn in place on a terminal, one line per step otherwise).
pub struct Progress {
    total: usize,
    done: usize,
    label: String,
    quiet: bool,
    tty: bool,
    last: Instant,
    start: Instant,
    requests: usize,
}

impl Progress {
    /// A bar over `total` steps.
    pub fn new(total: usize, quiet: bool) -> Self {
        let now = Instant::now();
        Progress {
            total,
            done: 0,
            label: String::new(),
            quiet,
            tty: std::io::stderr().is_terminal(),
            last: now,
            start: now,
            requests: 0,
        }
    }

    /// Start a step.
    pub fn step(&mut self, label: &str) {
        self.label = label.to_string();
        if !self.tty && !self.quiet {
            eprintln!("[{}/{}] {label}", self.done + 1, self.total);
        }
        self.draw(0, true);
    }

    /// Report `requests` answered within the current step (redraws at most every 100 ms).
    pub fn tick(&mut self, requests: usize) {
        self.draw(requests, false);
    }

    /// Finish the current step.
    pub fn finish_step(&mut self) {
        self.done += 1;
        self.draw(0, true);
    }

    fn draw(&mut self, requests: usize, force: bool) {
        self.requests = self.requests.max(requests);
        let requests = self.requests;
        if self.quiet || !self.tty || (!force && self.last.elapsed().as_millis() < 100) {
            return;
        }
        self.last = Instant::now();
        let width = 30;
        let filled = (self.done * width)
            .checked_div(self.total)
            .unwrap_or(width)
            .min(width);
        let bar: String = "#".repeat(filled) + &"-".repeat(width - filled);
        let mut e = std::io::stderr();
        let _ = write!(
            e,
            "\r\x1b[2K[{bar}] {}/{} {:<28} {:>6} requests {:>5.1}s",
            self.done,
            self.total,
            self.label,
            requests,
            self.start.elapsed().as_secs_f64()
        );
        let _ = e.flush();
    }

    /// Clear the bar.
    pub fn done(&mut self) {
        if !self.quiet && self.tty {
            eprintln!();
        }
    }
}
