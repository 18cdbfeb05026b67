#!/usr/bin/env bash
# Mutation testing of the codec's wire code, judged by the vector replay alone (issue 23):
# cargo-mutants mutates codec/src/wire.rs, codec/src/encode/ and codec/src/decode/ and runs
# conformance/tests/vector_replay.rs (release profile, that test target alone: not the codec's
# own tests) against each mutant.
# The published score and every surviving mutant are in vectors/COVERAGE.md.
#
#   bash tools/mutants.sh ci          the CI subset (below); fails under COVERAGE.md's threshold
#   bash tools/mutants.sh full        every mutant in scope (about 1,100; hours, see COVERAGE.md)
#   bash tools/mutants.sh shard K/N   one round-robin shard of the full scope
#   bash tools/mutants.sh named NAME...  the named mutants only (names as `full --list`
#                                     prints them), e.g. to re-run a survivor once a vector
#                                     that should kill it has landed
#   bash tools/mutants.sh codec-suite NAME...  the named mutants judged by the codec's own
#                                     test suite (`cargo test -p pmix-codec --release`, every
#                                     target) instead of the replay: the side-by-side score
#
# It mutates the checkout IN PLACE (so the release build already in target/ is reused) and
# restores each file after its mutant; it refuses to start on a tree with uncommitted changes
# to codec/src, and checks after the run that codec/src is unchanged. Use a clean clone or a
# spare git worktree. Output: target/mutants/<mode>/mutants.out/ (outcomes.json, missed.txt);
# a shard's in target/mutants/shard-K-of-N/.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
version=27.1.0
# The CI subset: named mutants of the wire primitives (flexible and zigzag integers) and of
# the VALUE/INFO paths of the encoder and decoder, and two once-surviving mutants now caught
# (INFO_ARRAY nesting, the reusing decode), each measured in vectors/COVERAGE.md, few
# enough to run in about 5 minutes on CI's 2 cores. Names carry line:column: when the code
# moves, the run finds fewer than listed and fails (update the names from `full --list`).
ci_names=(
  "codec/src/wire.rs:126:51: replace * with + in Reader<'a>::flex_long"
  "codec/src/wire.rs:200:42: replace + with * in Reader<'a>::flex_slow"
  "codec/src/wire.rs:271:26: replace >> with << in flex_into"
  "codec/src/wire.rs:359:5: replace zigzag -> u64 with 0"
  "codec/src/decode/value_info.rs:100:33: replace match guard self.quick_values with true in Dec<'a, O>::info_rest"
  "codec/src/encode/value_info.rs:156:20: delete ! in Enc::value_payload"
  "codec/src/decode/containers.rs:34:25: replace += with *= in Dec<'a, O>::info_array"
  "codec/src/decode/plan.rs:74:9: replace Dec<'a, O>::byte_objects_into -> Result<()> with Ok(())"
)
all_files=(-f codec/src/wire.rs -f 'codec/src/encode/*.rs' -f 'codec/src/decode/*.rs')
# The test: the vector replay alone, built and run on its own. cargo-mutants 27.1.0 runs its
# own baseline over the MUTATED packages (`--package=pmix-codec`, whatever --test-package
# says), where `--test vector_replay` does not exist: so its baseline is skipped
# (`--baseline skip`, with explicit timeouts) and this script runs the baseline itself, with
# exactly the cargo arguments cargo-mutants gives each mutant (the same profile, package and
# target, so the first mutant's build is incremental on top of it).
cargo_test=(--profile=release --package=pmix-conformance --test vector_replay)
timeout=240
test_args=(--no-config --test-package pmix-conformance --profile release
  --cargo-arg=--test --cargo-arg=vector_replay)
if [ "$mode" = codec-suite ]; then
  # The codec's own suite: every test target of pmix-codec (its vector replay among them).
  cargo_test=(--profile=release --package=pmix-codec)
  test_args=(--no-config --test-package pmix-codec --profile release)
  timeout=600
fi

case "$mode" in
  ci|named|codec-suite)
    [ "$mode" = ci ] || { shift; ci_names=("$@"); [ "$#" -gt 0 ] || { echo "mutants.sh: named needs mutant names" >&2; exit 2; }; }
    args=("${all_files[@]}")
    for n in "${ci_names[@]}"; do args+=(-F "^$(printf '%s' "$n" | sed 's/[][\\.*+?(){}|^$]/\\&/g')\$"); done ;;
  full) args=("${all_files[@]}") ;;
  shard) args=("${all_files[@]}" --shard "${2:?shard K/N}" --sharding round-robin) ;;
  *) sed -n '2,21p' "$0" >&2; exit 2 ;;
esac

if ! command -v cargo-mutants >/dev/null || ! cargo mutants --version | grep -qF "$version"; then
  echo "== cargo install --locked cargo-mutants --version $version"
  cargo install --locked cargo-mutants --version "$version"
fi
git diff --quiet -- codec/src || { echo "mutants.sh: codec/src has uncommitted changes" >&2; exit 1; }

out="target/mutants/$mode"
[ "$mode" != shard ] || out="target/mutants/shard-${2//\//-of-}"
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
# Which mutants this run covers, before anything is built: in CI mode every named mutant must
# still exist (names carry line:column, so moved code fails here, not after the baseline).
cargo mutants --list --no-config "${args[@]}" >"$out/list.txt"
echo "== mutants: $(wc -l <"$out/list.txt") in this run"
if [ "$mode" != full ] && [ "$mode" != shard ]; then
  missing=0
  for n in "${ci_names[@]}"; do
    grep -qxF "$n" "$out/list.txt" || { echo "mutants.sh: no such mutant now: $n" >&2; missing=1; }
  done
  [ "$missing" = 0 ] || { echo "mutants.sh: the code moved; update the names from \`cargo mutants --list\`" >&2; exit 1; }
fi
# The baseline: the unmutated tree must pass the replay, or nothing is tested. This is what
# makes a run over no vectors fail: vector_replay.rs refuses a corpus that did not load.
# CARGO_INCREMENTAL: each mutant rebuilds only what changed (about 3 times faster per mutant
# than a plain release build).
export CARGO_INCREMENTAL=1
echo "== baseline: cargo test ${cargo_test[*]}"
b0=$(date +%s)
cargo test "${cargo_test[@]}" || { echo "mutants.sh: the unmutated tree fails the replay: no mutant tested" >&2; exit 1; }
echo "== baseline: $(( $(date +%s) - b0 )) s"
status=0
cargo mutants --in-place --baseline skip --timeout "$timeout" --build-timeout 900 \
  -o "$out" "${test_args[@]}" "${args[@]}" || status=$?
git diff --quiet -- codec/src || { echo "mutants.sh: codec/src was left mutated" >&2; git diff --stat -- codec/src >&2; exit 1; }
echo "== mutants: $(( $(date +%s) - start )) s"
# cargo-mutants exits 2 when mutants were missed and 3 on timeouts: the score decides below.
# Anything else (a build error of the tree, an internal error) fails here.
case "$status" in 0|2|3) ;; *) echo "mutants.sh: cargo mutants failed ($status)" >&2; exit "$status" ;; esac
[ -f "$out/mutants.out/outcomes.json" ] || { echo "mutants.sh: no $out/mutants.out/outcomes.json" >&2; exit 1; }

python3 - "$out/mutants.out/outcomes.json" "$mode" vectors/COVERAGE.md "${#ci_names[@]}" <<'EOF'
import json, re, sys
outcomes, mode, coverage, ci_count = sys.argv[1:]
doc = open(coverage).read()
# Mutants COVERAGE.md lists as equivalent do not count against the score.
equivalent = set(re.findall(r"^- equivalent: `([^`]+)`", doc, re.M))
count = {"CaughtMutant": 0, "MissedMutant": 0, "Timeout": 0, "Unviable": 0}
missed = []
for o in json.load(open(outcomes))["outcomes"]:
    m = o["scenario"]
    if not isinstance(m, dict) or "Mutant" not in m:
        continue  # the baseline
    name = m["Mutant"]["name"]
    if name in equivalent:
        continue
    s = o["summary"]
    count[s] = count.get(s, 0) + 1
    if s == "MissedMutant":
        missed.append(name)
judged = count["CaughtMutant"] + count["MissedMutant"] + count["Timeout"]
if judged == 0:
    sys.exit("mutants.sh: no mutant was judged: the run tested nothing")
score = 100.0 * (count["CaughtMutant"] + count["Timeout"]) / judged
print(f"mutants ({mode}): {count['CaughtMutant']} caught, {count['Timeout']} timeout, "
      f"{count['MissedMutant']} missed, {count['Unviable']} unviable: score {score:.1f} %")
for name in missed:
    print(f"  missed: {name}")
m = re.search(r"CI threshold: (\d+(?:\.\d+)?) %", doc)
if mode == "ci":
    seen = judged + count["Unviable"]
    if seen != int(ci_count):
        sys.exit(f"mutants.sh: the CI subset names {ci_count} mutants but {seen} were found: "
                 "the code moved; update ci_names from `cargo mutants --list`")
    if not m:
        sys.exit("mutants.sh: vectors/COVERAGE.md states no CI threshold")
    if score < float(m.group(1)):
        sys.exit(f"mutants.sh: score {score:.1f} % is below the CI threshold {m.group(1)} %")
EOF
