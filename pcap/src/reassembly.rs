//! One direction of a TCP connection put back in order: retransmissions and overlaps are
//! dropped, out-of-order segments wait (bounded) until the gap before them fills, and a
//! stream whose first segment is not a SYN starts where the capture joined it.
//!
//! Sequence numbers are compared modulo 2^32 (RFC 793 arithmetic), so a stream may wrap.

/// What one segment did to the stream.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pushed {
    /// Bytes now in order, to hand to the message parser (possibly several segments' worth).
    pub data: Vec<u8>,
    /// Bytes seen again (retransmission or overlap) and dropped.
    pub duplicate: usize,
    /// Bytes the stream never saw: a gap given up on (the wait queue overflowed), or found
    /// at the end. The parser cannot continue across it.
    pub lost: usize,
}

/// One direction's reassembly state.
#[derive(Debug)]
pub struct Stream {
    /// The sequence number of the next byte expected; `None` before the first segment.
    next: Option<u32>,
    /// Whether the stream began with a SYN (false: joined mid-stream).
    pub saw_syn: bool,
    /// Segments ahead of `next`, waiting: (sequence number, bytes).
    waiting: Vec<(u32, Vec<u8>)>,
    waiting_bytes: usize,
    /// Largest number of bytes allowed to wait.
    max_waiting: usize,
    /// Whether a FIN or RST ended this direction.
    pub closed: bool,
    /// Bytes delivered so far (the stream offset of the next delivered byte).
    pub delivered: u64,
}

/// `a - b` as a signed distance in sequence space.
fn dist(a: u32, b: u32) -> i64 {
    a.wrapping_sub(b) as i32 as i64
}

impl Stream {
    /// A new direction that lets at most `max_waiting` bytes wait out of order.
    pub fn new(max_waiting: usize) -> Stream {
        Stream {
            next: None,
            saw_syn: false,
            waiting: Vec::new(),
            waiting_bytes: 0,
            max_waiting,
            closed: false,
            delivered: 0,
        }
    }

    /// Bytes held out of order.
    pub fn waiting_bytes(&self) -> usize {
        self.waiting_bytes
    }

    /// Whether the first segment seen has set the stream's start.
    pub fn started(&self) -> bool {
        self.next.is_some()
    }

    /// Take one segment.
    pub fn push(&mut self, seq: u32, syn: bool, payload: &[u8]) -> Pushed {
        let mut out = Pushed::default();
        let seq = if syn {
            if self.next.is_none() || !self.saw_syn {
                self.next = Some(seq.wrapping_add(1));
                self.saw_syn = true;
            }
            seq.wrapping_add(1)
        } else {
            seq
        };
        let next = *self.next.get_or_insert(seq);
        if payload.is_empty() {
            return out;
        }
        let d = dist(seq, next);
        let end = d + payload.len() as i64;
        if end <= 0 {
            out.duplicate = payload.len();
            return out;
        }
        if d > 0 {
            self.wait(seq, payload, &mut out);
            return out;
        }
        let skip = (-d) as usize;
        out.duplicate = skip;
        out.data.extend_from_slice(&payload[skip..]);
        self.advance(payload.len() - skip);
        self.drain(&mut out);
        out
    }

    fn advance(&mut self, n: usize) {
        if let Some(next) = &mut self.next {
            *next = next.wrapping_add(n as u32);
        }
        self.delivered += n as u64;
    }

    fn wait(&mut self, seq: u32, payload: &[u8], out: &mut Pushed) {
        if self
            .waiting
            .iter()
            .any(|(s, b)| *s == seq && b.len() >= payload.len())
        {
            out.duplicate = payload.len();
            return;
        }
        self.waiting.push((seq, payload.to_vec()));
        self.waiting_bytes += payload.len();
        while self.waiting_bytes > self.max_waiting {
            // Give up on the gap: skip to the earliest waiting segment.
            self.skip_gap(out);
        }
    }

    /// The earliest waiting segment's distance from `next`.
    fn earliest(&self) -> Option<(usize, i64)> {
        let next = self.next?;
        self.waiting
            .iter()
            .enumerate()
            .map(|(i, (s, _))| (i, dist(*s, next)))
            .min_by_key(|(_, d)| *d)
    }

    fn skip_gap(&mut self, out: &mut Pushed) {
        if let Some((_, d)) = self.earliest() {
            if d > 0 {
                out.lost += d as usize;
                self.advance(d as usize);
            }
        }
        self.drain(out);
    }

    fn drain(&mut self, out: &mut Pushed) {
        while let Some((i, d)) = self.earliest() {
            if d > 0 {
                break;
            }
            let (_, bytes) = self.waiting.swap_remove(i);
            self.waiting_bytes -= bytes.len();
            let skip = (-d) as usize;
            if skip >= bytes.len() {
                out.duplicate += bytes.len();
                continue;
            }
            out.duplicate += skip;
            out.data.extend_from_slice(&bytes[skip..]);
            self.advance(bytes.len() - skip);
        }
    }

    /// At the end of the capture: give up on every gap, delivering what waited after it.
    pub fn finish(&mut self) -> Pushed {
        let mut out = Pushed::default();
        while !self.waiting.is_empty() {
            self.skip_gap(&mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_after_a_syn() {
        let mut s = Stream::new(1 << 20);
        assert!(s.push(1000, true, &[]).data.is_empty());
        assert_eq!(s.push(1001, false, b"abc").data, b"abc");
        assert_eq!(s.push(1004, false, b"de").data, b"de");
        assert_eq!(s.delivered, 5);
    }

    #[test]
    fn retransmission_and_overlap_are_dropped() {
        let mut s = Stream::new(1 << 20);
        s.push(0, true, &[]);
        assert_eq!(s.push(1, false, b"abcd").data, b"abcd");
        let r = s.push(1, false, b"abcd");
        assert!(r.data.is_empty());
        assert_eq!(r.duplicate, 4);
        let r = s.push(3, false, b"cdef");
        assert_eq!(r.data, b"ef");
        assert_eq!(r.duplicate, 2);
    }

    #[test]
    fn out_of_order_waits_for_the_gap() {
        let mut s = Stream::new(1 << 20);
        s.push(0, true, &[]);
        assert!(s.push(4, false, b"def").data.is_empty());
        assert!(s.push(7, false, b"gh").data.is_empty());
        assert_eq!(s.waiting_bytes(), 5);
        assert_eq!(s.push(1, false, b"abc").data, b"abcdefgh");
        assert_eq!(s.waiting_bytes(), 0);
    }

    #[test]
    fn mid_stream_start_and_wrap() {
        let mut s = Stream::new(1 << 20);
        assert!(!s.started());
        assert_eq!(s.push(u32::MAX - 1, false, b"ab").data, b"ab");
        assert!(!s.saw_syn);
        assert_eq!(s.push(0, false, b"cd").data, b"cd");
    }

    #[test]
    fn a_gap_is_given_up_when_too_much_waits() {
        let mut s = Stream::new(4);
        s.push(0, true, &[]);
        s.push(11, false, b"xy");
        let r = s.push(13, false, b"zzz");
        // 5 bytes would wait: skip the 10-byte gap, deliver the rest
        assert_eq!(r.lost, 10);
        assert_eq!(r.data, b"xyzzz");
        let mut s = Stream::new(1 << 20);
        s.push(0, true, &[]);
        s.push(5, false, b"q");
        let r = s.finish();
        assert_eq!((r.lost, r.data), (4, b"q".to_vec()));
    }
}
