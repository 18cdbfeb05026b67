//! A view is the one decoder run without keeping values: it must agree with a decode.
//!
//! For every golden vector's bytes, every prefix of short ones and some of long ones, and
//! a flipped byte at each position of short ones: `Codec::view` succeeds exactly when
//! `Codec::decode_calls` does, fails with the same status, offset, call, type and path (and
//! so does an observed decode, which keeps its values, where the paths of both come from a
//! walk that keeps none),
//! and its values, decoded on demand, are the decode's values; the value ranges tile the
//! call from its first value to its end.

mod support;
use pmix_codec::*;
use support::decode_cases;

/// Values compared as their Debug text: the edge vectors carry NaN floats, and a NaN is not
/// equal to itself.
fn text<T: std::fmt::Debug>(x: &T) -> String {
    format!("{x:?}")
}

fn check(codec: &Codec, bytes: &[u8], calls: &[(DataType, usize)], what: &str) -> bool {
    let want = codec.decode_calls(bytes, calls);
    let got = codec.view(bytes, calls);
    match (&want, &got) {
        (Ok(items), Ok(view)) => {
            assert_eq!(view.len(), items.len(), "{what}");
            assert_eq!(text(&view.to_items().unwrap()), text(items), "{what}");
            for (call, item) in view.calls().zip(items) {
                assert_eq!(call.len(), item.values.len(), "{what}");
                // random access, last value first, gives the same values
                for i in (0..call.len()).rev() {
                    assert_eq!(
                        text(&call.get(i).unwrap()),
                        text(&item.values[i]),
                        "{what} value {i}"
                    );
                }
                if call.ty() != DataType::POINTER && !call.is_empty() {
                    let mut at = call.value_range(0).unwrap().start;
                    assert!(at > call.range().start, "{what}: the count comes first");
                    for i in 0..call.len() {
                        let r = call.value_range(i).unwrap();
                        assert_eq!(r.start, at, "{what} value {i}");
                        at = r.end;
                    }
                    assert_eq!(at, call.range().end, "{what}");
                }
                assert!(call.value_range(call.len()).is_none());
                assert_eq!(
                    call.get(call.len()).unwrap_err().status,
                    Status::ERR_BAD_PARAM
                );
            }
            true
        }
        (Err((want, _)), Err(got)) => {
            let field = |e: &Error| (e.status, e.offset, e.item, e.ty, e.path.clone());
            assert_eq!(field(got), field(want), "{what}: {want} vs {got}");
            // both paths come from a walk that keeps no value: an observed decode, which
            // keeps its values, stops at the same place
            if calls.iter().all(|(_, cap)| *cap == usize::MAX) {
                let types: Vec<DataType> = calls.iter().map(|(t, _)| *t).collect();
                let kept = codec
                    .decode_observed(bytes, Some(&types), &mut Watching)
                    .expect_err("the observed decode fails too");
                assert_eq!(field(&kept), field(want), "{what}: observed {kept}");
            }
            false
        }
        _ => panic!(
            "{what}: decode {:?} but view {:?}",
            want.as_ref().map(|_| ()).map_err(|(e, _)| e.to_string()),
            got.as_ref().map(|_| ()).map_err(|e| e.to_string())
        ),
    }
}

/// An observer that watches everything and does nothing with it.
struct Watching;
impl observe::Observer for Watching {}

#[test]
fn a_view_fails_where_decode_fails_and_gives_its_values() {
    let (mut ok, mut failed) = (0usize, 0usize);
    for c in decode_cases() {
        let (codec, calls, wire) = (&c.codec, &c.calls, &c.wire);
        let what = |how: String| format!("{} {how}", c.label);
        for cut in 0..=wire.len() {
            if wire.len() > 32 && cut != wire.len() && cut % 41 != 0 {
                continue;
            }
            let passed = check(codec, &wire[..cut], calls, &what(format!("cut at {cut}")));
            *if passed { &mut ok } else { &mut failed } += 1;
        }
        if wire.len() <= 64 {
            for at in 0..wire.len() {
                let mut bent = wire.clone();
                bent[at] ^= 0x5a;
                let passed = check(codec, &bent, calls, &what(format!("byte {at} flipped")));
                *if passed { &mut ok } else { &mut failed } += 1;
            }
        }
        // one value fewer room than sent: the capacity error, after the values
        if let Some(first) = c.items.first().filter(|i| i.values.len() > 1) {
            let mut tight = calls.clone();
            tight[0].1 = first.values.len() - 1;
            check(codec, wire, &tight, &what("capacity one short".into()));
        }
    }
    eprintln!("{ok} agreed views, {failed} agreed failures");
    assert!(
        ok > 10_000 && failed > 10_000,
        "{ok} agreed views, {failed} agreed failures"
    );
}

#[test]
fn a_view_keeps_no_value() {
    // 100k one-byte values: a decode holds 100k Values, a view 100k offsets
    let codec = Codec::new(Component::V41, BufferKind::NonDescribed);
    let n = 100_000;
    let bytes = Bytes::from(
        codec
            .encode(&[Item::new(DataType::UINT8, vec![Value::Uint8(1); n])])
            .unwrap(),
    );
    let view = codec
        .view(&bytes, &[(DataType::UINT8, usize::MAX)])
        .unwrap();
    let call = view.call(0).unwrap();
    assert_eq!(call.len(), n);
    assert_eq!(
        call.iter()
            .filter(|v| v.as_ref().unwrap() == &Value::Uint8(1))
            .count(),
        n
    );
    assert_eq!(view.consumed(), bytes.len());
    assert!(
        std::ptr::eq(view.input().as_ptr(), bytes.as_ptr()),
        "the view shares the input"
    );
}
