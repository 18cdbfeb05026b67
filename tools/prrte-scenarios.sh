#!/usr/bin/env bash
# prrte-scenarios.sh: run every spec scenario against a real PRRTE 5.0.0rc1 (OpenPMIx 7.0.0rc1)
# through conformance's pmix-prrte-bridge, and judge the results against the expected
# deviations (conformance/expected/prrte-5.0.0rc1.toml).
#
#   bash tools/prrte-scenarios.sh [--json OUT.json] [--filter TEXT] [--no-expected]
#
# Makes the sid root if needed (tools/peers.sh make 7.0.0rc1), builds the puppet tool
# (tools/prrte/puppet.c) inside it (cached under ROOT/opt/pmix-wire/, rebuilt when the source
# changes), builds the Rust binaries, then runs `pmix-conformance scenarios` with the bridge as
# the server. Prints the summary line; exits 0 when the results match the expected file.
# Needs root (mount and UTS namespaces). About 10 minutes (92 scenarios, loaded 2-core machine). PMIX_PRRTE_BRIDGE_LOGS=DIR keeps every
# DVM's prte.log there (for triage).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
release=7.0.0rc1
json="" filter="" expected="$repo/conformance/expected/prrte-5.0.0rc1.toml"
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json="${2:?--json needs a file}"; shift 2 ;;
    --filter) filter="${2:?--filter needs a value}"; shift 2 ;;
    --no-expected) expected=""; shift ;;
    -h | --help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "prrte-scenarios: unknown option '$1' (valid: --json FILE, --filter TEXT, --no-expected)" >&2; exit 2 ;;
  esac
done

root="$(bash "$repo/tools/peers.sh" root "$release" 2>/dev/null)" || {
  bash "$repo/tools/peers.sh" make "$release" >&2
  root="$(bash "$repo/tools/peers.sh" root "$release")"
}
[ -x "$root/usr/bin/prte" ] || { echo "prrte-scenarios: no prte in $root" >&2; exit 1; }

# The puppet: a real PMIx tool linked against the root's libpmix, cached inside the root.
puppet="$(bash "$repo/tools/prrte/puppet.sh")"

cargo build --release -q -p pmix-conformance --manifest-path "$repo/Cargo.toml" >&2
bin="$repo/target/release"
args=(scenarios --timeout 120 --verbose)
[ -n "$filter" ] && args+=(--filter "$filter")
[ -n "$expected" ] && args+=(--expected "$expected")
if [ -n "$json" ]; then
  set +e
  "$bin/pmix-conformance" "${args[@]}" --json --server "$bin/pmix-prrte-bridge" \
    --repo "$repo" --puppet "$puppet" >"$json"
  rc=$?
  set -e
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); t=r["totals"]; print("%s [%s]: %d cases, %d passed, %d failed (%d reading-free, %d reading-dependent), %d inconclusive, %d unsupported, %d errors" % (r["suite"], r["target"], t["total"], t["passed"], t["failed"], t["failed"] - t["reading_dependent"], t["reading_dependent"], t["inconclusive"], t["unsupported"], t["errors"]))' "$json"
  exit $rc
fi
exec "$bin/pmix-conformance" "${args[@]}" --server "$bin/pmix-prrte-bridge" \
  --repo "$repo" --puppet "$puppet"
