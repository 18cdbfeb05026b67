#!/usr/bin/env bash
# server-scenarios.sh: run every spec scenario through real OpenPMIx 7.0.0rc1 tools and
# clients against pmix-server (the reference model as its host), with conformance's
# pmix-prrte-bridge in its native mode (--native-server): the same driver, puppets and
# judgement as tools/prrte-scenarios.sh, with `pmix-server serve` in place of a PRRTE DVM.
# No expected-deviations file: every scenario must pass (unsupported only where the bridge
# itself cannot drive a step, each with its reason).
#
#   bash tools/server-scenarios.sh [--json OUT.json] [--filter TEXT]
#
# Needs the 7.0.0rc1 sid root (bash tools/peers.sh make 7.0.0rc1) and root (mount
# namespaces, as peers.sh run). Prints the summary line; exits 0 when nothing failed.
# With PMIX_BRIDGE_RECORD=DIR set, every pmix-server started records its conversations in
# DIR/server-PID-N/conn-K.json (pmix-server serve --record), to read a rare failure on the wire.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
json="" filter=""
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json="${2:?--json needs a file}"; shift 2 ;;
    --filter) filter="${2:?--filter needs a value}"; shift 2 ;;
    -h | --help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "server-scenarios: unknown option '$1' (valid: --json FILE, --filter TEXT)" >&2; exit 2 ;;
  esac
done

puppet="$(bash "$repo/tools/prrte/puppet.sh")"
cargo build --release -q -p pmix-conformance -p pmix-server --manifest-path "$repo/Cargo.toml" >&2
bin="$repo/target/release"
args=(scenarios --timeout 120 --verbose)
[ -n "$filter" ] && args+=(--filter "$filter")
bridge=(--server "$bin/pmix-prrte-bridge" --repo "$repo" --puppet "$puppet" --native-server "$bin/pmix-server")
if [ -n "$json" ]; then
  set +e
  "$bin/pmix-conformance" "${args[@]}" --json "${bridge[@]}" >"$json"
  rc=$?
  set -e
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); t=r["totals"]; print("%s [%s]: %d cases, %d passed, %d failed (%d reading-free, %d reading-dependent), %d inconclusive, %d unsupported, %d errors" % (r["suite"], r["target"], t["total"], t["passed"], t["failed"], t["failed"] - t["reading_dependent"], t["reading_dependent"], t["inconclusive"], t["unsupported"], t["errors"]))' "$json"
  exit $rc
fi
exec "$bin/pmix-conformance" "${args[@]}" "${bridge[@]}"
