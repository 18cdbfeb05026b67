#!/usr/bin/env bash
# matrix.sh: the runtime matrix of issue 15, printed by one command.
#
#   bash tools/prrte/matrix.sh [--json]
#
# Starts a 4-node PRRTE 5.0.0rc1 DVM (tools/prrte/dvm.sh), runs `pmix-peer matrix` (for every component v12 ... v61 the server accepts; v41,
# v51 and v61: connect as a tool, NEW allocation of one node with a request id and, where the
# component has type 75, PMIX_ALLOC_INHERITANCE=CHILD; PMIX_DVM_IS_READY; spawn with
# PMIX_SPAWN_TARGET; proc table; finalize; for components without type 75, what the server
# answers when the request carries it anyway), prints the table and stops the DVM.
# Needs root and `bash tools/peers.sh make 7.0.0rc1`. About 10 s.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dir="$(mktemp -d "${TMPDIR:-/tmp}/pmix-peer-matrix.XXXXXX")"
trap 'bash "$here/dvm.sh" stop --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
(cd "$repo" && cargo build -q --release -p pmix-peer)
bash "$here/dvm.sh" start --nodes n1,n2,n3,n4 --dir "$dir" >/dev/null
timeout 300 "$repo/target/release/pmix-peer" matrix --uri "$dir/uri" --nodes n2,n3,n4 "$@"
