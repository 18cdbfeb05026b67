//! The writing half of a connection. A reply goes out at once as far as the socket takes it
//! (a non-blocking send, so whoever answers, the event loop or a host thread, never waits on
//! a slow reader); what the socket does not take waits in the connection's queue, in order,
//! and the event loop sends it when the socket is writable. The queue is bounded: a peer
//! that lets more than [`MAX_QUEUED`] bytes pile up is cut off (its connection shut down,
//! which the event loop then cleans up as any lost connection).

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Mutex, MutexGuard};

use rustix::io::Errno;
use rustix::net::{send, SendFlags};

/// Most bytes waiting for one peer before it is cut off (a reply larger than this alone is
/// still sent: that is what the work needs).
pub const MAX_QUEUED: usize = 16 << 20;

/// Wakes the event loop from another thread (a byte on a socket pair it polls).
pub struct Waker {
    tx: UnixStream,
    rx: UnixStream,
}

impl Waker {
    /// A new waker.
    pub fn new() -> std::io::Result<Waker> {
        let (tx, rx) = UnixStream::pair()?;
        tx.set_nonblocking(true)?;
        rx.set_nonblocking(true)?;
        Ok(Waker { tx, rx })
    }

    /// Make the loop's next (or current) poll return.
    pub fn wake(&self) {
        // a full pair means a wake-up is already pending
        let _ = (&self.tx).write(&[1]);
    }

    /// The end the loop polls.
    pub(crate) fn receiver(&self) -> &UnixStream {
        &self.rx
    }

    /// Consume pending wake-ups.
    pub(crate) fn clear(&self) {
        let mut buf = [0u8; 64];
        while matches!((&self.rx).read(&mut buf), Ok(n) if n > 0) {}
    }
}

#[derive(Default)]
struct Queue {
    frames: VecDeque<Vec<u8>>,
    /// Bytes of the first frame already sent.
    front_sent: usize,
    /// Bytes waiting in all.
    bytes: usize,
    closed: bool,
}

/// The writing half of one connection, shared by whoever answers on it.
pub struct Outgoing {
    stream: Arc<TcpStream>,
    queue: Mutex<Queue>,
    waker: Arc<Waker>,
}

fn cut_off() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::BrokenPipe,
        "connection closed (or cut off for not reading its replies)",
    )
}

/// Send as much of `buf` as the socket takes now; the count sent.
fn send_now(stream: &TcpStream, buf: &[u8]) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match send(
            stream,
            &buf[done..],
            SendFlags::DONTWAIT | SendFlags::NOSIGNAL,
        ) {
            Ok(n) => done += n,
            Err(Errno::INTR) => {}
            Err(Errno::AGAIN) => break,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(done)
}

impl Outgoing {
    /// The writing half of the connection `stream` (shared with the event loop, which
    /// reads it); `waker` tells the loop when something starts waiting.
    pub fn new(stream: Arc<TcpStream>, waker: Arc<Waker>) -> Outgoing {
        Outgoing {
            stream,
            queue: Mutex::new(Queue::default()),
            waker,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn shut(&self, q: &mut Queue) {
        q.closed = true;
        q.frames.clear();
        q.bytes = 0;
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// Send one whole frame, after what is already waiting. An error means the connection
    /// is gone (or was cut off now): the frame is the receiver's loss.
    pub fn send(&self, wire: Vec<u8>) -> std::io::Result<()> {
        let mut q = self.lock();
        if q.closed {
            return Err(cut_off());
        }
        let mut sent = 0;
        if q.frames.is_empty() {
            match send_now(&self.stream, &wire) {
                Ok(n) if n == wire.len() => return Ok(()),
                Ok(n) => sent = n,
                Err(e) => {
                    self.shut(&mut q);
                    return Err(e);
                }
            }
        } else if q.bytes + wire.len() > MAX_QUEUED {
            self.shut(&mut q);
            return Err(cut_off());
        }
        let was_idle = q.frames.is_empty();
        q.bytes += wire.len() - sent;
        q.frames.push_back(wire);
        if was_idle {
            q.front_sent = sent;
            // the loop polls for writability only while something waits
            self.waker.wake();
        }
        Ok(())
    }

    /// Send what waits, as far as the socket takes it (the loop calls this when the socket
    /// is writable). An error means the connection is gone.
    pub fn drain(&self) -> std::io::Result<()> {
        let mut q = self.lock();
        while let Some(front) = q.frames.front() {
            let from = q.front_sent;
            let n = match send_now(&self.stream, &front[from..]) {
                Ok(n) => n,
                Err(e) => {
                    self.shut(&mut q);
                    return Err(e);
                }
            };
            let whole = from + n == front.len();
            q.bytes -= n;
            if !whole {
                q.front_sent += n;
                return Ok(());
            }
            q.frames.pop_front();
            q.front_sent = 0;
        }
        Ok(())
    }

    /// Bytes waiting to be sent.
    pub fn queued(&self) -> usize {
        self.lock().bytes
    }

    /// The connection is gone: drop what waits and refuse what comes.
    pub fn close(&self) {
        let mut q = self.lock();
        self.shut(&mut q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, TcpListener};

    fn pair() -> (TcpStream, TcpStream) {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let a = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (b, _) = l.accept().unwrap();
        (a, b)
    }

    #[test]
    fn a_reader_that_does_not_read_gets_a_queue_then_is_cut_off() {
        let (ours, theirs) = pair();
        let out = Outgoing::new(Arc::new(ours), Arc::new(Waker::new().unwrap()));
        let frame = vec![7u8; 1 << 20];
        let mut sent = 0usize;
        // never blocks: what the socket does not take waits, up to the bound
        while out.send(frame.clone()).is_ok() {
            sent += frame.len();
            assert!(out.queued() <= MAX_QUEUED, "queue beyond its bound");
            assert!(sent < 4 * MAX_QUEUED, "never cut off");
        }
        assert!(out.queued() == 0, "the queue is dropped when cut off");
        assert!(
            out.send(vec![1]).is_err(),
            "a cut-off peer gets nothing more"
        );
        // the peer sees its connection end after what the socket had taken
        let mut theirs = theirs;
        let mut got = Vec::new();
        let _ = theirs.read_to_end(&mut got);
        assert!(got.len() < sent && got.iter().all(|b| *b == 7));
    }

    #[test]
    fn queued_frames_arrive_whole_and_in_order_once_the_peer_reads() {
        let (ours, mut theirs) = pair();
        let out = Arc::new(Outgoing::new(
            Arc::new(ours),
            Arc::new(Waker::new().unwrap()),
        ));
        let frames: Vec<Vec<u8>> = (0..12u8).map(|i| vec![i; 1_000_000]).collect();
        for f in &frames {
            out.send(f.clone()).unwrap();
        }
        assert!(
            out.queued() > 0,
            "12 MB fit in a loopback socket: the test proves nothing"
        );
        let reader = std::thread::spawn(move || {
            let mut got = vec![0u8; 12 * 1_000_000];
            theirs.read_exact(&mut got).unwrap();
            got
        });
        while out.queued() > 0 {
            out.drain().unwrap();
            std::thread::yield_now();
        }
        let got = reader.join().unwrap();
        assert_eq!(got, frames.concat());
    }
}
