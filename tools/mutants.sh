#!/usr/bin/env bash
# Mutation testing of the codec's wire code, judged by the vector replay alone (issue 23):
# cargo-mutants mutates codec/src/wire.rs, codec/src/encode/ and codec/src/decode/ and runs
# conformance/tests/vector_replay.rs (release profile with the codec overflow-checked, that test target alone: not the codec's
# own tests) against each mutant.
# The published score is in vectors/COVERAGE.md, every surviving mutant in
# vectors/coverage/survivors.md.
#
#   bash tools/mutants.sh ci          the CI subset (below); fails under COVERAGE.md's threshold
#   bash tools/mutants.sh full        every mutant in scope (about 1,100; hours, see COVERAGE.md)
#   bash tools/mutants.sh shard K/N   one round-robin shard of the full scope
#   bash tools/mutants.sh named NAME...  the named mutants only (names as `full --list`
#                                     prints them), e.g. to re-run a survivor once a vector
#                                     that should kill it has landed
#   bash tools/mutants.sh codec-suite NAME...  the named mutants judged by the codec's own
#                                     test suite (`cargo test -p pmix-codec --release`, every
#                                     target) instead of the replay: the side-by-side score.
#                                     In two passes, for speed only: the quick targets first
#                                     (all but the slow ones below), then the whole suite for
#                                     each mutant the quick pass missed; see below.
#                                     `codec-suite --whole NAME...` skips the quick pass
#                                     (for mutants a quick pass already missed)
#
# It mutates the checkout IN PLACE (so the release build already in target/ is reused) and
# restores each file after its mutant; it refuses to start on a tree with uncommitted changes
# to codec/src, and checks after the run that codec/src is unchanged. Use a clean clone or a
# spare git worktree. Output: target/mutants/<mode>/mutants.out/ (outcomes.json, missed.txt);
# a shard's in target/mutants/shard-K-of-N/; codec-suite's in target/mutants/codec-suite/quick/
# and .../suite/ (the second pass).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
whole_only=0
if [ "$mode" = codec-suite ] && [ "${2:-}" = --whole ]; then whole_only=1; set -- "$1" "${@:3}"; fi
version=27.1.0
# The CI subset: named mutants of the wire primitives (flexible and zigzag integers) and of
# the VALUE/INFO paths of the encoder and decoder, and three once-surviving mutants now caught
# (INFO_ARRAY nesting, the reusing decode, v12's 1.x WILDCARD rank) and four once unreachable
# (the narration's field lengths; a wrapped counter, seen only with overflow checks; an array
# not grown before a raw write, seen only with debug assertions; 4.2's PROC_STATS read as
# written, seen only by the as-written check of bytes the testee packed), each
# measured in vectors/COVERAGE.md, few
# enough to run in about 5 minutes on CI's 2 cores. Names carry line:column: when the code
# moves, the run finds fewer than listed and fails (update the names from `full --list`).
ci_names=(
  "codec/src/wire.rs:127:51: replace * with + in Reader<'a>::flex_long"
  "codec/src/wire.rs:201:42: replace + with * in Reader<'a>::flex_slow"
  "codec/src/wire.rs:272:26: replace >> with << in flex_into"
  "codec/src/wire.rs:360:5: replace zigzag -> u64 with 0"
  "codec/src/decode/value_info.rs:100:33: replace match guard self.quick_values with true in Dec<'a, O>::info_rest"
  "codec/src/encode/value_info.rs:156:20: delete ! in Enc::value_payload"
  "codec/src/decode/containers.rs:39:25: replace += with *= in Dec<'a, O>::info_array"
  "codec/src/decode/plan.rs:74:9: replace Dec<'a, O>::byte_objects_into -> Result<()> with Ok(())"
  "codec/src/decode/structs.rs:31:44: replace - with / in Dec<'a, O>::struct_rank"
  "codec/src/decode/observing.rs:85:34: replace - with / in Dec<'a, O>::emit_field"
  "codec/src/encode/containers.rs:62:28: replace += with -= in Enc::darray"
  "codec/src/decode/room.rs:83:5: replace grow_for_one -> Result<()> with Ok(())"
  "codec/src/decode/leaf.rs:201:67: replace && with || in Dec<'a, O>::leaf"
)
all_files=(-f codec/src/wire.rs -f 'codec/src/encode/*.rs' -f 'codec/src/decode/*.rs')
# The test: the vector replay alone, built and run on its own. cargo-mutants 27.1.0 runs its
# own baseline over the MUTATED packages (`--package=pmix-codec`, whatever --test-package
# says), where `--test vector_replay` does not exist: so its baseline is skipped
# (`--baseline skip`, with explicit timeouts) and this script runs the baseline itself, with
# exactly the cargo arguments cargo-mutants gives each mutant (the same profile, package and
# target, so the first mutant's build is incremental on top of it).
# The codec is built with overflow checks (the release profile otherwise): arithmetic that
# wraps is a bug in the codec (it checks every count it reads before it computes with it), and
# a mutant whose only effect is a wrapped, unread counter is visible only this way. And with
# debug assertions: the codec asserts (debug_assert) the room it made before each raw write
# of a value into its array, so a mutant that skips making room fails there instead of
# writing past the allocation unseen (undefined behaviour, not a different answer). Only
# pmix-codec and what depends on it are built twice; the other packages' release builds stay.
# The builds are incremental (`profile.release.incremental`, off by default in release): a
# mutant changes one function, so only the code units that hold it and what inlines it are
# built again (measured: about 4 s a mutant instead of about 50 s; the first build is a full
# one). The optimisation level is the release profile's; incremental builds split the code
# into more units, which changes speed, never meaning.
overflow=profile.release.package.pmix-codec.overflow-checks=true
assertions=profile.release.package.pmix-codec.debug-assertions=true
incremental=profile.release.incremental=true
cargo_test=(--config "$overflow" --config "$assertions" --config "$incremental" --profile=release --package=pmix-conformance --test vector_replay)
timeout=240
judge="the replay"
test_args=(--no-config --test-package pmix-conformance --profile release
  "--cargo-arg=--config=$overflow" "--cargo-arg=--config=$assertions" "--cargo-arg=--config=$incremental"
  --cargo-arg=--test --cargo-arg=vector_replay)
if [ "$mode" = codec-suite ]; then
  # The codec's own suite: every test target of pmix-codec (its vector replay among them).
  cargo_test=(--config "$overflow" --config "$assertions" --config "$incremental" --profile=release --package=pmix-codec)
  test_args=(--no-config --test-package pmix-codec --profile release "--cargo-arg=--config=$overflow"
    "--cargo-arg=--config=$assertions" "--cargo-arg=--config=$incremental")
  timeout=600
  judge="the codec's tests"
  # The quick pass: the library's unit tests and every integration test target but the
  # slow ones (together about 25 s on an idle machine, against about 200 s for the suite;
  # the doc tests run only with the whole suite). A mutant a quick target fails is caught by
  # the suite too (cargo test stops at the first failing target, in name order, so the
  # suite would fail there or earlier); a mutant the quick pass misses is then judged by the
  # whole suite, unchanged, in a second pass. No test is left out of the verdict; only the
  # order differs. A quick-pass timeout counts as caught like any other (the suite would hang
  # at that target too). Each pass has its own baseline, with that pass's cargo arguments.
  slow_targets=" packer reuse view "
  quick_targets=(--lib)
  for f in codec/tests/*.rs; do
    t=$(basename "$f" .rs)
    [[ "$slow_targets" == *" $t "* ]] || quick_targets+=(--test "$t")
  done
  quick_args=()
  for a in "${quick_targets[@]}"; do quick_args+=("--cargo-arg=$a"); done
  quick_timeout=240
fi

# The -F filter that selects exactly the mutant named $1 (a regex of the name, anchored).
name_filter() { printf '^%s$' "$(printf '%s' "$1" | sed 's/[][\\.*+?(){}|^$]/\\&/g')"; }

case "$mode" in
  ci|named|codec-suite)
    [ "$mode" = ci ] || { shift; ci_names=("$@"); [ "$#" -gt 0 ] || { echo "mutants.sh: named needs mutant names" >&2; exit 2; }; }
    args=("${all_files[@]}")
    for n in "${ci_names[@]}"; do args+=(-F "$(name_filter "$n")"); done ;;
  full) args=("${all_files[@]}") ;;
  shard) args=("${all_files[@]}" --shard "${2:?shard K/N}" --sharding round-robin) ;;
  *) sed -n '2,28p' "$0" >&2; exit 2 ;;
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
# Every test binary (the baseline's and each mutant's) runs under an address-space limit
# (tools/limit-memory.sh as cargo's runner): a mutant that reads a lying count as an
# allocation size fails on that allocation instead of exhausting the machine's memory.
host="$(rustc -vV | sed -n 's/^host: //p')"
export "CARGO_TARGET_$(printf '%s' "$host" | tr 'a-z-' 'A-Z_')_RUNNER=$PWD/tools/limit-memory.sh"
baseline() {
  echo "== baseline: cargo test $*"
  local b0
  b0=$(date +%s)
  cargo test "$@" || { echo "mutants.sh: the unmutated tree fails $judge: no mutant tested" >&2; exit 1; }
  echo "== baseline: $(( $(date +%s) - b0 )) s"
}
# One cargo-mutants run into $1 (its output folder), with the timeout $2 and the rest of the
# arguments; cargo-mutants exits 2 when mutants were missed and 3 on timeouts (the score
# decides below); anything else (a build error of the tree, an internal error) fails here.
run_mutants() {
  local dir="$1" limit="$2" status=0
  shift 2
  cargo mutants --in-place --baseline skip --timeout "$limit" --build-timeout 900 \
    -o "$dir" "$@" || status=$?
  git diff --quiet -- codec/src || { echo "mutants.sh: codec/src was left mutated" >&2; git diff --stat -- codec/src >&2; exit 1; }
  case "$status" in 0|2|3) ;; *) echo "mutants.sh: cargo mutants failed ($status)" >&2; exit "$status" ;; esac
  [ -f "$dir/mutants.out/outcomes.json" ] || { echo "mutants.sh: no $dir/mutants.out/outcomes.json" >&2; exit 1; }
}
# The outcomes the score reads, in order: a later file's outcome of a mutant replaces an
# earlier one's.
outcome_files=()
if [ "$mode" = codec-suite ] && [ "$whole_only" = 1 ]; then
  baseline "${cargo_test[@]}"
  run_mutants "$out/suite" "$timeout" "${test_args[@]}" "${args[@]}"
  outcome_files+=("$out/suite/mutants.out/outcomes.json")
elif [ "$mode" = codec-suite ]; then
  echo "== quick pass: ${quick_targets[*]}"
  baseline "${cargo_test[@]}" "${quick_targets[@]}"
  run_mutants "$out/quick" "$quick_timeout" "${test_args[@]}" "${quick_args[@]}" "${args[@]}"
  outcome_files+=("$out/quick/mutants.out/outcomes.json")
  # The whole suite, for every mutant the quick pass missed (one that does not build there
  # does not build for the suite either: the same library).
  second=()
  while IFS= read -r n; do
    [ -z "$n" ] || second+=(-F "$(name_filter "$n")")
  done <"$out/quick/mutants.out/missed.txt"
  if [ "${#second[@]}" -gt 0 ]; then
    echo "== whole suite: $(( ${#second[@]} / 2 )) mutants the quick pass did not catch"
    baseline "${cargo_test[@]}"
    run_mutants "$out/suite" "$timeout" "${test_args[@]}" "${all_files[@]}" "${second[@]}"
    outcome_files+=("$out/suite/mutants.out/outcomes.json")
  fi
else
  baseline "${cargo_test[@]}"
  run_mutants "$out" "$timeout" "${test_args[@]}" "${args[@]}"
  outcome_files+=("$out/mutants.out/outcomes.json")
fi
echo "== mutants: $(( $(date +%s) - start )) s"

python3 - "$mode" vectors/COVERAGE.md "${#ci_names[@]}" "${outcome_files[@]}" <<'EOF'
import glob, json, os, re, sys
mode, coverage, ci_count, *outcome_files = sys.argv[1:]
doc = open(coverage).read()
# Mutants the coverage report lists as equivalent do not count against the score: the list
# is in vectors/coverage/survivors.md ("Every surviving mutant", moved out of COVERAGE.md).
record = sorted(glob.glob(os.path.join(os.path.dirname(coverage), "coverage", "*.md")))
equivalent = set()
for page in [coverage] + record:
    equivalent |= set(re.findall(r"^- equivalent: `([^`]+)`", open(page).read(), re.M))
if not equivalent:
    sys.exit("mutants.sh: no equivalent mutant listed in vectors/COVERAGE.md or vectors/coverage/")
count = {"CaughtMutant": 0, "MissedMutant": 0, "Timeout": 0, "Unviable": 0}
missed = []
final = {}
for outcomes in outcome_files:
    for o in json.load(open(outcomes))["outcomes"]:
        m = o["scenario"]
        if isinstance(m, dict) and "Mutant" in m:  # not the baseline
            final[m["Mutant"]["name"]] = o["summary"]
for name, s in final.items():
    if name in equivalent:
        continue
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
