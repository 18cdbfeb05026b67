#!/usr/bin/env bash
# Fuzz smoke run for CI (see fuzz/README.md): build every cargo-fuzz target, replay the
# saved regressions, then run each target for FUZZ_SECONDS (default 30) from the committed
# seeds plus seeds generated from vectors/. Fails on any crash, leak, timeout or OOM.
#
#   FUZZ_SECONDS=60 bash .ci/fuzz.sh            # longer
#   FUZZ_TARGETS="decode_modern json" bash .ci/fuzz.sh
#   FUZZ_DIFFERENTIAL=0 bash .ci/fuzz.sh        # skip the libpmix differential target
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

seconds=${FUZZ_SECONDS:-30}
targets=${FUZZ_TARGETS:-"decode_legacy decode_converged decode_modern roundtrip json pcap_capture differential"}
[ "${FUZZ_DIFFERENTIAL:-1}" = 1 ] || targets=${targets//differential/}

# cargo-fuzz needs nightly-only rustc flags (-Zsanitizer=address); CI has the stable
# toolchain only, so unlock them on it.
export RUSTC_BOOTSTRAP=1
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

cd fuzz
work=$(mktemp -d "${TMPDIR:-/tmp}/pmix-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "== fuzz: fmt and clippy (fuzz/ is its own workspace)"
cargo fmt --check
cargo clippy --all-targets --features tools,seedgen -- -D warnings

echo "== fuzz: dictionaries and seeds from vectors/"
gen() { cargo run --quiet --release --features seedgen --bin "$@"; }
gen dicts "$work/dict" >/dev/null
for d in decode.dict json.dict; do
  cmp -s "dict/$d" "$work/dict/$d" || {
    echo "fuzz/dict/$d is stale: regenerate it with (cd fuzz && cargo run --release --features seedgen --bin dicts -- dict)" >&2
    exit 1
  }
done
gen seeds "$root/vectors" "$work/seeds" 300

dict_of() {
  case "$1" in
    json) echo "-dict=dict/json.dict" ;;
    roundtrip | pcap_capture) ;;
    *) echo "-dict=dict/decode.dict" ;;
  esac
}

for t in $targets; do
  features=()
  [ "$t" = differential ] && features=(--features tools)
  echo "== fuzz: build $t"
  cargo fuzz build "${features[@]}" "$t"
  corpus="$work/corpus/$t"
  mkdir -p "$corpus" "regressions/$t"
  dirs=("$corpus")
  for d in "seeds/$t" "$work/seeds/$t" "regressions/$t"; do
    [ -d "$d" ] && dirs+=("$d")
  done
  mkdir -p "artifacts/$t"
  echo "== fuzz: run $t for ${seconds}s"
  # The regressions are replayed as part of the seed corpus before fuzzing starts.
  set +e
  # shellcheck disable=SC2046
  cargo fuzz run "${features[@]}" "$t" "${dirs[@]}" -- \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$root/fuzz/artifacts/$t/" $(dict_of "$t") >"$work/$t.log" 2>&1
  status=$?
  set -e
  if [ "$status" -ne 0 ]; then
    grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)' "$work/$t.log" | tail -n 150 >&2
    echo "fuzz target $t failed (exit $status); the input is in fuzz/artifacts/$t/ (see fuzz/README.md, 'A crash')" >&2
    exit "$status"
  fi
  grep -E '^(Done|stat::|INFO: seed corpus|#[0-9]+[[:space:]]+INITED)' "$work/$t.log" || true
done
echo "== fuzz: all targets ran ${seconds}s without a finding"
