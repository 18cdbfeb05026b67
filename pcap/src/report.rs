//! The human forms of the dissector's events: a tree per message in the style of
//! `pmix-wire inspect` / `decode --output tree`, or one line per message like tshark's.

use std::io::Write;

use pmix_codec::json::value_to_json;

use crate::event::{ConnInfo, Event, Message, Problem, Stats};

fn conn_line(c: &ConnInfo) -> String {
    let mut s = format!("connection {}: {} -> {}", c.id, c.client, c.server);
    if c.mid_stream {
        s.push_str(" (joined mid-stream)");
    }
    s.push('\n');
    let opt = |o: Option<&str>| o.unwrap_or("?").to_string();
    s.push_str(&format!(
        "  peer {}, version {}, bfrops {}, buffer {}\n",
        opt(c.kind.map(crate::handshake::kind_name)),
        opt(c.version.as_deref()),
        opt(c.component.map(|k| k.name())),
        opt(c.buffer.map(|k| k.name())),
    ));
    if let Some(r) = c.release {
        s.push_str(&format!(
            "  decoded with release profile {r} for the client{}, {} for the server{}\n",
            if c.release_exact {
                ""
            } else {
                " (nearest to its version)"
            },
            c.server_release.map(|r| r.name()).unwrap_or("?"),
            if c.server_release == c.release {
                " (assumed: the handshake does not carry the server's version; --server-release)"
            } else {
                ""
            },
        ));
    }
    if let Some((n, r)) = &c.proc {
        s.push_str(&format!("  client proc {n}:{r}\n"));
    }
    s
}

fn problem_lines(out: &mut String, pad: &str, p: &Problem) {
    let at = p
        .offset
        .map(|o| format!(" at byte {o}"))
        .unwrap_or_default();
    out.push_str(&format!(
        "{pad}!! {}{at} [{}]: {}\n",
        p.severity.name(),
        p.field,
        p.text
    ));
    if let Some(e) = &p.explanation {
        out.push_str(&format!("{pad}   why: {e}\n"));
    }
}

fn label(m: &Message) -> String {
    let arrow = match m.from {
        crate::event::Side::Client => "client -> server",
        crate::event::Side::Server => "server -> client",
    };
    let mut s = format!("#{} {} {}", m.number, arrow, m.what);
    if let Some(t) = m.tag {
        s.push_str(&format!(" tag {t}"));
    }
    if let Some(r) = m.reply_to {
        s.push_str(&format!(" (reply to #{r})"));
    }
    s
}

/// The tree form of one event.
pub fn tree(e: &Event) -> String {
    let mut out = Vec::new();
    // writing to a Vec does not fail, and every piece is a str
    let _ = write_tree(e, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// At most this many bytes of a pack call's values are shown in the tree (then `...` and
/// the length of the whole).
const VALUES_SHOWN: usize = 400;

/// Write [`tree`]'s text of one event to `w`. A message is written line by line, and of
/// each pack call's values only the first 400 bytes of text are kept (the
/// rest is measured one value at a time), so a call of a million values costs one value's
/// text, not the text of all of them.
pub fn write_tree(e: &Event, w: &mut dyn Write) -> std::io::Result<()> {
    let Event::Message(m) = e else {
        return w.write_all(other_tree(e).as_bytes());
    };
    writeln!(
        w,
        "  {}  [conn {}, packet {}, {} bytes]",
        label(m),
        m.conn,
        m.packet,
        m.header.len() + m.payload.len()
    )?;
    if m.header.len() == 16 && m.tag.is_some() {
        writeln!(w, "    0     header {}", crate::hex_spaced(&m.header))?;
    }
    for f in &m.fields {
        writeln!(w, "    {:<5} {}: {}", f.offset, f.name, f.value)?;
    }
    for (i, item) in m.items.iter().enumerate() {
        let at = m.offsets.get(i).map(|o| o.to_string()).unwrap_or_default();
        // the values joined with ", ": the first VALUES_SHOWN bytes and more kept, the
        // length of the whole counted
        let mut text = String::new();
        let mut len = 0usize;
        for (k, v) in item.values.iter().enumerate() {
            let sep = if k > 0 { ", " } else { "" };
            let one = value_to_json(v).to_string();
            len += sep.len() + one.len();
            if text.len() <= VALUES_SHOWN {
                text.push_str(sep);
                text.push_str(&one);
            }
        }
        if len > VALUES_SHOWN {
            let mut cut = VALUES_SHOWN;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text = format!("{}... ({len} chars)", &text[..cut]);
        }
        writeln!(w, "    {at:<5} {} x{}: {text}", item.ty, item.values.len())?;
    }
    let mut problems = String::new();
    for p in &m.problems {
        problem_lines(&mut problems, "    ", p);
    }
    w.write_all(problems.as_bytes())
}

/// The tree form of an event other than a message.
fn other_tree(e: &Event) -> String {
    let mut out = String::new();
    match e {
        Event::Connection(c) => out.push_str(&conn_line(c)),
        Event::Message(_) => {}
        Event::Problem {
            conn,
            packet,
            problem,
        } => {
            let c = conn.map(|c| format!("conn {c}, ")).unwrap_or_default();
            out.push_str(&format!("  ({c}packet {packet})\n"));
            problem_lines(&mut out, "  ", problem);
        }
        Event::Closed {
            conn,
            messages,
            unanswered,
            ..
        } => {
            out.push_str(&format!(
                "connection {conn} ends: {messages} messages{}\n",
                if *unanswered > 0 {
                    format!(", {unanswered} requests without a reply")
                } else {
                    String::new()
                }
            ));
        }
        Event::Stats(s) => out.push_str(&stats_line(s)),
    }
    out
}

/// The one-line form of one event (`--summary`); `None` for events it leaves out.
pub fn summary(e: &Event) -> Option<String> {
    match e {
        Event::Connection(c) => Some(format!(
            "conn {} {} -> {} {} {} {} {}{}",
            c.id,
            c.client,
            c.server,
            c.kind.map(crate::handshake::kind_name).unwrap_or("?"),
            c.version.as_deref().unwrap_or("?"),
            c.component.map(|k| k.name()).unwrap_or("?"),
            c.buffer.map(|k| k.name()).unwrap_or("?"),
            if c.mid_stream { " mid-stream" } else { "" }
        )),
        Event::Message(m) => {
            let mut s = format!(
                "{:>6} {:>10.6} conn {} {}",
                m.packet,
                m.time.as_secs_f64(),
                m.conn,
                label(m)
            );
            if let Some(st) = m.status {
                s.push_str(&format!(" status {st}"));
            }
            s.push_str(&format!(" {}B", m.header.len() + m.payload.len()));
            if let Some(p) = m.problems.iter().max_by_key(|p| p.severity) {
                let at = p.offset.map(|o| format!(" @{o}")).unwrap_or_default();
                s.push_str(&format!(" [{}{at}: {}]", p.severity.name(), p.text));
            }
            Some(s)
        }
        Event::Problem {
            conn,
            packet,
            problem,
        } => Some(format!(
            "{packet:>6} conn {} {}: {}",
            conn.map(|c| c.to_string()).unwrap_or("-".into()),
            problem.severity.name(),
            problem.text
        )),
        Event::Closed { .. } => None,
        Event::Stats(s) => Some(stats_line(s).trim_end().to_string()),
    }
}

fn stats_line(s: &Stats) -> String {
    format!(
        "capture: {} packets, {} TCP segments, {} connections ({} PMIx, {} not PMIx, {} joined mid-stream and not decoded{}), {} messages, {} retransmitted bytes dropped, {} bytes missing, peak {} bytes held\n",
        s.packets,
        s.tcp_segments,
        s.connections,
        s.pmix_connections,
        s.not_pmix,
        s.mid_stream_skipped,
        if s.evicted > 0 { format!(", {} dropped over the limits", s.evicted) } else { String::new() },
        s.messages,
        s.duplicate_bytes,
        s.lost_bytes,
        s.peak_held
    )
}
