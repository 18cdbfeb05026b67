#!/usr/bin/env bash
# conversations.sh: record (or check) the conversation vectors of the native peer.
#
#   bash tools/prrte/conversations.sh            rewrite vectors/conversations/prrte-5.0.0rc1/
#   bash tools/prrte/conversations.sh --check    record afresh and compare; exit 1 on a difference
#
# Starts a fresh 4-node PRRTE 5.0.0rc1 DVM (tools/prrte/dvm.sh) per component and records, for v41, v51 and v61,
# the `pmix-peer run` conversation (format: ptl/src/conversation.rs, vectors/README.md).
# --check compares what must not move between recordings: the request/reply sequence, each
# message's types and info keys, the DVM_IS_READY event, and the bytes of the server-independent requests.
# Needs root and `bash tools/peers.sh make 7.0.0rc1`. About 10 s.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
check=()
case "${1:-}" in
  --check) check=(--check) ;;
  "") ;;
  *) echo "conversations: unknown option '$1' (valid: --check)" >&2; exit 2 ;;
esac
out="$repo/vectors/conversations/prrte-5.0.0rc1"
(cd "$repo" && cargo build -q --release -p pmix-peer)
status=0
# one fresh DVM per component, so that no other conversation's events reach this one
for pair in v41:n2 v51:n3 v61:n4; do
  c="${pair%%:*}" node="${pair##*:}"
  dir="$(mktemp -d "${TMPDIR:-/tmp}/pmix-peer-conv.XXXXXX")"
  trap 'bash "$here/dvm.sh" stop --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
  bash "$here/dvm.sh" start --nodes n1,n2,n3,n4 --dir "$dir" >/dev/null 2>&1
  timeout 120 "$repo/target/release/pmix-peer" record --uri "$dir/uri" -c "$c" --node "$node" \
    --out "$out/$c-non-described.json" "${check[@]}" || status=1
  bash "$here/dvm.sh" stop --dir "$dir" >/dev/null 2>&1 || true
  rm -rf "$dir"
done
exit $status
