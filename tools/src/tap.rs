//! A wire tap for the live matrix: a TCP relay between real PMIx clients (or tools) and a
//! real server that records what each peer put in its connect message (psec, bfrops
//! component, buffer type, gds, version, identity), so a cell's negotiated component is the
//! one seen on the wire, not a guess from the environment. Everything after the connect
//! message is relayed untouched in both directions.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread;

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

fn write_line(log: &Mutex<std::fs::File>, line: &serde_json::Value) {
    let mut f = log.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(f, "{line}");
    let _ = f.flush();
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

fn relay(mut client: TcpStream, upstream: &str, log: &Mutex<std::fs::File>) -> io::Result<()> {
    let mut server = TcpStream::connect(upstream)?;
    // the connect message: a 16-byte header whose nbytes (bytes 8..12) is in host order
    let mut header = [0u8; 16];
    client.read_exact(&mut header)?;
    let nbytes = u32::from_ne_bytes([header[8], header[9], header[10], header[11]]);
    if nbytes > MAX_CONNECT_BODY {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("connect message claims {nbytes} bytes (at most {MAX_CONNECT_BODY})"),
        ));
    }
    let mut body = vec![0u8; nbytes as usize];
    client.read_exact(&mut body)?;
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

    #[test]
    fn describes_a_4_2_2_client_connect_message() {
        // the 52-byte connect body of a 4.2.2 client over URI41 (native, SIMPLE_CLIENT)
        let mut body = b"native\0".to_vec();
        body.extend_from_slice(&8u32.to_be_bytes());
        body.extend_from_slice(&[0; 8]);
        body.push(0);
        body.extend_from_slice(b"mockjob\0");
        body.extend_from_slice(&0u32.to_be_bytes());
        body.extend_from_slice(b"4.2.2rc2\0v41\0\x01hash\0\0");
        let d = describe(&body);
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
}
