//! Replaying what a real client sent (from a capture, `pmix-pcap`) to pmix-server and
//! reading its answers where the real server answered, for the tests that compare the two
//! byte for byte (`real_server_replay.rs`, `level_gets.rs`).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use pmix_pcap::{Message, Side};

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// One answer of pmix-server, or why there was none.
pub fn read_framed(s: &mut TcpStream) -> Result<Vec<u8>, String> {
    let mut hdr = [0u8; 16];
    s.read_exact(&mut hdr)
        .map_err(|e| format!("no answer: {e}"))?;
    let n = u32::from_be_bytes([hdr[8], hdr[9], hdr[10], hdr[11]]) as usize;
    if n > 1 << 20 {
        return Err(format!("an answer of {n} bytes"));
    }
    let mut body = vec![0u8; n];
    s.read_exact(&mut body)
        .map_err(|e| format!("a short answer: {e}"))?;
    let mut all = hdr.to_vec();
    all.extend_from_slice(&body);
    Ok(all)
}

/// One answer compared: what it was, pmix-server's bytes, the real server's.
pub type Answer = (String, String, String);

/// Replay what one real client sent (`msgs`, from its connect message on) on `s`, and
/// read pmix-server's answer wherever the real server answered.
pub fn replay(s: &mut TcpStream, msgs: &[Message]) -> Result<Vec<Answer>, String> {
    s.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut out = Vec::new();
    for m in msgs {
        let real: Vec<u8> = m.header.iter().chain(&m.payload).copied().collect();
        let ours = match (m.from, m.what.as_str()) {
            (Side::Client, _) => {
                s.write_all(&real).map_err(|e| e.to_string())?;
                continue;
            }
            // the connect reply is not framed: as many bytes as the real one
            (Side::Server, "connect-reply") => {
                let mut ours = vec![0u8; real.len()];
                s.read_exact(&mut ours)
                    .map_err(|e| format!("no connect reply: {e}"))?;
                ours
            }
            (Side::Server, _) => read_framed(s).map_err(|e| format!("{}: {e}", m.what))?,
        };
        out.push((m.what.clone(), hex(&ours), hex(&real)));
    }
    Ok(out)
}
