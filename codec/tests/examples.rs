//! Every example under `codec/examples/` runs here (each asserts its own result against
//! bytes a real OpenPMIx recorded), so a broken example fails `cargo test`.

#[path = "../examples/decode_captured.rs"]
mod decode_captured;
#[path = "../examples/info_alloc_inherit.rs"]
mod info_alloc_inherit;
// Its main (argument parsing around replay) is exercised by `cargo run --example`.
#[allow(dead_code)]
#[path = "../examples/replay_vectors.rs"]
mod replay_vectors;

#[test]
fn decode_captured_runs() {
    decode_captured::main();
}

#[test]
fn info_alloc_inherit_runs() {
    info_alloc_inherit::main();
}

mod replay {
    use super::replay_vectors::replay;
    #[test]
    fn replays_the_whole_corpus_and_would_count_a_failure() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors");
        let (passed, failed) = replay(std::slice::from_ref(&root));
        assert!(passed > 20_000, "{passed}");
        assert_eq!(failed, 0);
        // A corrupted copy of one file: its changed vector is counted as failed.
        let src = root.join("openpmix-4.2.2/v41-non-described.json");
        let text = std::fs::read_to_string(&src).unwrap();
        let broken = text.replacen("\"wire\": \"0200\"", "\"wire\": \"0201\"", 1);
        assert_ne!(
            broken, text,
            "the BOOL false vector is where the test expects it"
        );
        let dir = std::env::temp_dir().join(format!("pmix-examples-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let copy = dir.join("v41-non-described.json");
        std::fs::write(&copy, broken).unwrap();
        let (_, failed) = replay(&[copy]);
        assert!(failed >= 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
