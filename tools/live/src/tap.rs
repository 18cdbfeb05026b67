//! A wire tap for the live matrix: a TCP relay between real PMIx clients (or tools) and a
//! real server that records what each peer put in its connect message (psec, bfrops
//! component, buffer type, gds, version, identity), so a cell's negotiated component is the
//! one seen on the wire, not a guess from the environment. Everything after the connect
//! message is relayed untouched in both directions.
//!
//! Several taps may append to one log (the live matrix runs one per rank): each record is
//! written with a single `write` of the whole line to a file opened for appending, so lines
//! of different taps never interleave. A peer that sends a malformed, truncated or
//! oversized connect message gets a record saying why (an `error` line) and its connection
//! closed; the tap goes on serving, and never holds more than [`MAX_CONNECT_BODY`] bytes of
//! one peer's message.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use pmix_ptl::accept::{ConnectMessage, MAX_CONNECT_BODY};

/// Where the tap relays to and where it writes what it saw.
pub struct Tap {
    listener: TcpListener,
    upstream: String,
    log: Arc<Mutex<std::fs::File>>,
}

impl Tap {
    /// Listen on an ephemeral loopback port; relay every connection to `upstream`
    /// (`host:port`), appending one JSON line per connect message to `log`.
    pub fn bind(upstream: &str, log: &PathBuf) -> io::Result<Tap> {
        upstream
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no upstream address"))?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)?;
        Ok(Tap {
            listener: TcpListener::bind("127.0.0.1:0")?,
            upstream: upstream.to_string(),
            log: Arc::new(Mutex::new(file)),
        })
    }

    /// The local port peers connect to.
    pub fn port(&self) -> io::Result<u16> {
        Ok(self.listener.local_addr()?.port())
    }

    /// Accept and relay connections until the process ends (each on its own threads).
    pub fn serve(self) {
        for conn in self.listener.incoming() {
            let Ok(conn) = conn else { continue };
            let upstream = self.upstream.clone();
            let log = Arc::clone(&self.log);
            thread::spawn(move || {
                if let Err(e) = relay(conn, &upstream, &log) {
                    let line = serde_json::json!({ "error": e.to_string() });
                    write_line(&log, &line);
                }
            });
        }
    }
}

/// Append one record as one `write` of the whole line: formatting straight into the file
/// wrote each JSON token on its own, and two taps sharing a log interleaved their lines
/// (the live matrix's lost connect messages).
fn write_line(log: &Mutex<std::fs::File>, line: &serde_json::Value) {
    let mut text = line.to_string();
    text.push('\n');
    let mut f = log.lock().unwrap_or_else(|e| e.into_inner());
    let _ = f.write_all(text.as_bytes());
}

/// What one connect message said, as a JSON object (or why it could not be read).
pub fn describe(body: &[u8]) -> serde_json::Value {
    match ConnectMessage::parse(body) {
        Ok(m) => serde_json::json!({
            "psec": m.psec,
            "flag": format!("{:?}", m.flag),
            "nspace": m.proc.as_ref().map(|p| p.0.clone()),
            "rank": m.proc.as_ref().map(|p| p.1),
            "version": m.version,
            "bfrops": m.bfrops,
            "buffer": match m.buffer_type {
                1 => "non-described".to_string(),
                2 => "fully-described".to_string(),
                b => format!("unknown ({b})"),
            },
            "gds": m.gds,
        }),
        Err(e) => serde_json::json!({ "error": format!("connect message: {e}") }),
    }
}

/// How long a peer may take to send its whole connect message.
pub const CONNECT_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Read one connect message: the 16-byte header (its nbytes, bytes 8..12, in host order)
/// and the body it announces. A claim over [`MAX_CONNECT_BODY`] is refused before anything
/// is allocated, and the body grows only as its bytes arrive, so a peer cannot make the
/// tap hold more than it really sent.
pub fn read_connect(peer: &mut impl Read) -> io::Result<([u8; 16], Vec<u8>)> {
    let mut header = [0u8; 16];
    peer.read_exact(&mut header)
        .map_err(|e| io::Error::new(e.kind(), format!("connect header (16 bytes): {e}")))?;
    let nbytes = u32::from_ne_bytes([header[8], header[9], header[10], header[11]]);
    if nbytes > MAX_CONNECT_BODY {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("connect message claims {nbytes} bytes (at most {MAX_CONNECT_BODY})"),
        ));
    }
    let mut body = Vec::new();
    peer.take(u64::from(nbytes)).read_to_end(&mut body)?;
    if body.len() < nbytes as usize {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "connect message truncated: {} of the {nbytes} bytes its header claims",
                body.len()
            ),
        ));
    }
    Ok((header, body))
}

fn relay(mut client: TcpStream, upstream: &str, log: &Mutex<std::fs::File>) -> io::Result<()> {
    let mut server = TcpStream::connect(upstream)?;
    // a peer that never finishes its connect message does not hold a thread for ever
    client.set_read_timeout(Some(CONNECT_READ_TIMEOUT))?;
    let (header, body) = read_connect(&mut client)?;
    client.set_read_timeout(None)?;
    write_line(log, &describe(&body));
    server.write_all(&header)?;
    server.write_all(&body)?;
    let (mut c2, mut s2) = (client.try_clone()?, server.try_clone()?);
    let up = thread::spawn(move || {
        let _ = io::copy(&mut c2, &mut s2);
        let _ = s2.shutdown(Shutdown::Write);
    });
    let _ = io::copy(&mut server, &mut client);
    let _ = client.shutdown(Shutdown::Write);
    let _ = up.join();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::time::Instant;

    /// The 52-byte connect body of a 4.2.2 client over URI41 (native, SIMPLE_CLIENT).
    fn client_body(rank: u32) -> Vec<u8> {
        let mut body = b"native\0".to_vec();
        body.extend_from_slice(&8u32.to_be_bytes());
        body.extend_from_slice(&[0; 8]);
        body.push(0);
        body.extend_from_slice(b"mockjob\0");
        body.extend_from_slice(&rank.to_be_bytes());
        body.extend_from_slice(b"4.2.2rc2\0v41\0\x01hash\0\0");
        body
    }

    /// The 16-byte header announcing `nbytes` (host order, as the library sends it).
    fn header(nbytes: u32) -> [u8; 16] {
        let mut h = [0u8; 16];
        h[8..12].copy_from_slice(&nbytes.to_ne_bytes());
        h
    }

    fn message(body: &[u8]) -> Vec<u8> {
        let mut m = header(body.len() as u32).to_vec();
        m.extend_from_slice(body);
        m
    }

    /// A private folder for one test's log.
    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("pmix-live-tap-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// An upstream server that reads and drops whatever it gets.
    fn sink() -> String {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        thread::spawn(move || {
            for c in l.incoming().flatten() {
                thread::spawn(move || {
                    let _ = io::copy(&mut &c, &mut io::sink());
                });
            }
        });
        addr
    }

    /// Start a tap on `log` relaying to `upstream`; its port.
    fn start(upstream: &str, log: &PathBuf) -> u16 {
        let tap = Tap::bind(upstream, log).unwrap();
        let port = tap.port().unwrap();
        thread::spawn(move || tap.serve());
        port
    }

    /// The log's lines once it has `n` of them (bounded wait).
    fn await_lines(log: &PathBuf, n: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            let lines: Vec<String> = text.lines().map(str::to_string).collect();
            if lines.len() >= n || Instant::now() > deadline {
                return lines;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    fn send(port: u16, bytes: &[u8]) {
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        c.write_all(bytes).unwrap();
        let _ = c.shutdown(Shutdown::Write);
        // wait for the tap to close its side (it has read what it needs by then)
        let _ = io::copy(&mut c, &mut io::sink());
    }

    #[test]
    fn describes_a_4_2_2_client_connect_message() {
        let d = describe(&client_body(0));
        assert_eq!(d["bfrops"], "v41");
        assert_eq!(d["buffer"], "non-described");
        assert_eq!(d["gds"], "hash");
        assert_eq!(d["nspace"], "mockjob");
        assert_eq!(d["rank"], 0);
    }

    #[test]
    fn a_truncated_connect_message_is_an_error_not_a_panic() {
        let d = describe(b"native\0\0\0");
        assert!(d["error"].as_str().unwrap().contains("connect message"));
    }

    #[test]
    fn every_cut_of_a_connect_body_is_described_or_refused_without_panic() {
        let body = client_body(3);
        // the body's last byte (after the gds name) is optional to the parser
        for cut in 0..body.len() - 1 {
            let d = describe(&body[..cut]);
            assert!(
                d.get("error").is_some(),
                "a body cut at {cut} bytes was accepted: {d}"
            );
        }
        assert_eq!(describe(&body)["rank"], 3);
    }

    #[test]
    fn a_huge_claim_is_refused_before_reading_or_allocating_it() {
        // header claims u32::MAX bytes; the reader would hand out a gigabyte if asked
        let mut peer = Cursor::new(header(u32::MAX).to_vec()).chain(io::repeat(7).take(1 << 30));
        let e = read_connect(&mut peer).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(
            e.to_string()
                .contains(&format!("at most {MAX_CONNECT_BODY}")),
            "{e}"
        );
        // nothing past the header was read
        let mut rest = [0u8; 1];
        assert_eq!(peer.read(&mut rest).unwrap(), 1);
        assert_eq!(rest[0], 7);
    }

    #[test]
    fn a_body_shorter_than_its_claim_is_an_error_holding_only_what_came() {
        let mut bytes = header(MAX_CONNECT_BODY).to_vec();
        bytes.extend_from_slice(&[1; 10]);
        let e = read_connect(&mut Cursor::new(bytes)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(
            e.to_string()
                .contains(&format!("10 of the {MAX_CONNECT_BODY} bytes")),
            "{e}"
        );
        let e = read_connect(&mut Cursor::new(vec![0u8; 5])).unwrap_err();
        assert!(e.to_string().contains("connect header"), "{e}");
    }

    #[test]
    fn hostile_peers_get_an_error_record_and_the_tap_keeps_serving() {
        let d = scratch("hostile");
        let log = d.join("tap.jsonl");
        let port = start(&sink(), &log);
        send(port, &[1, 2, 3, 4, 5]); // a truncated header
        send(port, &header(u32::MAX)); // a huge claim
        let mut short = header(64).to_vec();
        short.extend_from_slice(b"native\0");
        send(port, &short); // a body shorter than its claim
        send(port, &message(&[0xff; 40])); // a full message that is not a connect body
        send(port, &message(&client_body(1))); // and a good one after all of them
        let lines = await_lines(&log, 5);
        let records: Vec<serde_json::Value> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(records.len(), 5, "{lines:?}");
        let errors: Vec<&str> = records.iter().filter_map(|r| r["error"].as_str()).collect();
        assert_eq!(errors.len(), 4, "{lines:?}");
        for want in ["connect header", "at most", "truncated", "connect message:"] {
            assert!(
                errors.iter().any(|e| e.contains(want)),
                "no error saying {want:?}: {errors:?}"
            );
        }
        assert!(
            records
                .iter()
                .any(|r| r["rank"] == 1 && r["bfrops"] == "v41"),
            "{lines:?}"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn two_taps_sharing_one_log_never_interleave_their_lines() {
        // the live matrix runs one tap per rank on one log; formatting straight into the
        // file wrote each JSON token with its own write and mixed the two ranks' lines
        let d = scratch("shared");
        let log = d.join("tap.jsonl");
        let up = sink();
        let ports = [start(&up, &log), start(&up, &log)];
        let per_tap = 150;
        let senders: Vec<_> = (0..2 * per_tap)
            .map(|i| {
                let port = ports[i % 2];
                thread::spawn(move || send(port, &message(&client_body(i as u32))))
            })
            .collect();
        for s in senders {
            s.join().unwrap();
        }
        let lines = await_lines(&log, 2 * per_tap);
        assert_eq!(lines.len(), 2 * per_tap);
        let mut ranks: Vec<u64> = lines
            .iter()
            .map(|l| {
                let r: serde_json::Value = serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("unreadable line {l:?}: {e}"));
                r["rank"].as_u64().unwrap()
            })
            .collect();
        ranks.sort_unstable();
        assert_eq!(ranks, (0..2 * per_tap as u64).collect::<Vec<_>>());
        let _ = std::fs::remove_dir_all(&d);
    }
}
