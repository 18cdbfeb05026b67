#!/usr/bin/env bash
# live-matrix.sh: the live interop matrix. Real libpmix clients and tools of every release
# against real servers of every kind; every operation observed, recorded in one JSON file.
#
#   bash tools/live-matrix.sh [--json OUT] [--servers A,B] [--clients A,B]
#                             [--variants base,tool,force,buffer,gds,psec,peer] [--ci]
#                             [--baseline FILE] [--plant crash,init-fails]
#                             [--hostfile F [--agent fake|ssh]] [--munged]
#
# Makes what is missing (the C programs per release, tools/live/build.sh; the wire tap and
# pmix-server, cargo), then for each server and each client release runs cells, one
# progress line per cell:
#   base    the job's two ranks run tools/live/live-client.c with the environment the
#           server gave them: init, job-info get, put/commit/fence/get of every type class,
#           the operations the field breaks on (below), allocation request with
#           PMIX_ALLOC_INHERITANCE, query, abort-seen, finalize
#           field operations, every one checking values (a success with another value is
#           reported as PMIX_ERR_TYPE_MISMATCH, "value mismatch: got X want Y"):
#           job-key:*   PMIX_JOB_SIZE LOCAL_SIZE LOCAL_PEERS UNIV_SIZE APPNUM NODEID
#                       LOCAL_RANK against what the launcher set, given to the client as
#                       LIVE_EXPECT_<KEY> (expect_env in this script: the 2-rank job, and
#                       per server its placement; unset = not known, reported unjudged)
#           get-rank-undef, get-rank-wildcard, fence-nodata-get: keys committed after a
#                       fence WITHOUT data, got by rank UNDEF, by WILDCARD (not found is
#                       right: job-level only), by the other rank (direct modex)
#           qualified-values (two PMIX_QUALIFIED_VALUE of one key), get-refresh-cache
#                       (PMIX_GET_REFRESH_CACHE after a second commit): NOT_SUPPORTED
#                       where the release's headers lack them
#           get-wait-commit, get-wait-commit-timeout: rank 1 commits 1 s (3 s) later,
#                       rank 0's get has no timeout (the libraries' 2 s default) or
#                       PMIX_TIMEOUT 10
#           event-notify: each rank raises an event, the other's handler must get it
#           abort-seen: rank 1 calls PMIx_Abort for itself and ends without finalize
#                       (its last op); rank 0 must see an event naming it within 5 s
#   tool    a tool (given id) against the server's URI: init, query, allocation, finalize
#   force   once per older bfrops component both sides offer: only that component's
#           PMIX_SERVER_URI variable is left, so the client speaks it (MATRIX.md's cells)
#   buffer  the buffer type the server advertises against the client's: the client told
#           PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC (client-fully); and against
#           a plain server started fully-described, the client given that advertisement
#           (server-fully) or not (server-fully-client-default: the client's own default)
#   gds     one cell per gds module the client's release has (PMIX_GDS_MODULE=M: 4.2.2
#           ds12 ds21 hash, 5.0.7 and 6.x shmem2 hash, 7.0.0rc1 shmem3 hash); base keeps
#           the server's list
#   psec    one cell per psec module the client's release has besides native
#           (PMIX_SECURITY_MODE=M: munge in 4.2.2 and 5.0.7, none in 5.0.7 and later); no
#           munged runs for the client, so munge is "installed on the client side only";
#           with --munged, the psec cells are munge cells with a munge daemon whose socket
#           both sides see (tools/live/munged.sh, with the Slurm 24.11.5 root's key: the
#           run goes on inside its namespace; for another key run the matrix under
#           `bash tools/live/munged.sh run --key-of 22.05.8 -- bash tools/live-matrix.sh ...`)
#   peer    pmix-peer (this repository's native tool, `pmix-peer live`) as a tool row, once
#           per bfrops component the server offers: init, query, allocation, finalize
# Every connection passes the wire tap (pmix-live-tap), so the component, buffer type, gds
# and psec recorded are the ones the client named on the wire.
#
# Servers (default: every one that is made): plain-4.2.2 plain-5.0.7 plain-6.0.0
# plain-6.1.0 plain-7.0.0rc1 (peer/servers/plain-server.c), prrte-5.0.0rc1 (a DVM of
# tools/prrte/dvm.sh on n1,n2; with --hostfile F on the hosts of F, started over real ssh
# with --agent ssh, or by the fake agent standing in), pmix-server (ours), slurm-24.11.5 and slurm-22.05.8
# (tools/live/slurm.sh; included when `slurm.sh make` has made them).
# --ci: the documented CI subset, one cell of each kind (base cells only): every client
# release against its own release's plain server; one cross-release pair each way (4.2.2
# against plain-7.0.0rc1, 7.0.0rc1 against plain-4.2.2); PRRTE (a two-node DVM: fence and
# modex through the host) and pmix-server with 7.0.0rc1 and 4.2.2; NOT Slurm (its roots come
# from the Debian archive over the network, `slurm.sh make`, about 2 minutes each: the full
# run covers it). With --servers or --clients, every pair of those instead. And a harness check: every same-release base cell (client R against
# plain-R) must reach the wire and complete init, every put/fence/get and finalize, and no
# cell may have a harness error (a wire tap that did not start or wrote an unreadable
# line); cross-release failures are findings, not errors.
# --baseline FILE: after the run, compare it with an earlier observations file cell by cell
# (`pmix-vectors live --observations OUT --baseline FILE`) and exit 1 on any cell that got
# worse: works -> fails or crash, fails -> crash, fewer operations succeeded, or ran -> not
# run; one line per such cell. --ci does the same against the checked-in
# vectors/live/observations.json, on the cells the CI subset runs.
# --plant crash,init-fails: add cells with a fault planted on purpose, recorded with the
# plant named in the cell (never part of the grid; LIVE.md lists them apart): `crash` runs
# a base cell per server and client whose client raises SIGSEGV right after init
# (PMIX_LIVE_PLANT=segv-after-init, tools/live/live-client.c); `init-fails` starts each
# plain server refusing every client (PMIX_PLAIN_PLANT=refuse-clients,
# peer/servers/plain-server.c), one base cell per client. Both must come out failing, and
# --ci or --baseline must exit non-zero: that is the test of the scoring.
# Every cell tried is recorded: one the harness could not run (the server did not start,
# or does not offer the forced component under PMIX_SERVER_URI<N>, 2 or 20 for v20) is
# recorded as not run, with its reason. A cell's processes are recorded with how each
# ended (exit code, signal, timed out; the plain server's and pmix-server's too, unless
# the harness had to end it); a signal or a client that stops before reporting every
# operation fails the cell (vectors/live/README.md, "Scoring").
# Writes OUT (default vectors/live/observations.json, format 2: vectors/live/README.md),
# then prints the matrix with `pmix-vectors live` when that command exists. A subset run
# (--servers, --clients, --variants) must be written elsewhere (--json target/...) and
# merged: python3 tools/live/merge.py vectors/live/observations.json OUT
# vectors/live/observations.json --why TEXT (each cell of OUT replaces the same experiment's).
# Needs root (the debootstrap roots, namespaces) and `bash tools/peers.sh make all`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
live="$here/live"
peers="$here/peers.sh"
shared="${PMIX_LIVE_SHARED:-/tmp/pmix-live}"
cache="${PMIX_WIRE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmix-wire}"

RELEASES=(4.2.2 5.0.7 6.0.0 6.1.0 7.0.0rc1)
out="$repo/vectors/live/observations.json"
servers="" clients="" variants="base,tool,force,buffer,gds,psec,peer" hostfile="" agent=fake ci=0 explicit=0
baseline="" plants=""
cmdline="bash tools/live-matrix.sh $*"
if [ -z "${PMIX_LIVE_MUNGED:-}" ] && [[ " $* " == *" --munged "* ]]; then
  # the whole run inside the namespace where a munged's socket is at libmunge's default path
  exec bash "$here/live/munged.sh" run -- bash "${BASH_SOURCE[0]}" "$@"
fi
while [ $# -gt 0 ]; do
  case "$1" in
    --json) out="${2:?}"; shift 2 ;;
    --servers) servers="${2:?}"; explicit=1; shift 2 ;;
    --clients) clients="${2:?}"; explicit=1; shift 2 ;;
    --variants) variants="${2:?}"; shift 2 ;;
    --hostfile) hostfile="${2:?}"; shift 2 ;;
    --agent) agent="${2:?}"; shift 2 ;;
    --ci) ci=1; variants="base"; shift ;;
    --baseline) baseline="${2:?}"; shift 2 ;;
    --plant)
      plants="${2:?}"; shift 2
      for p in ${plants//,/ }; do
        case "$p" in crash | init-fails) ;; *) echo "live-matrix: --plant: '$p' (crash, init-fails)" >&2; exit 2 ;; esac
      done
      ;;
    --munged) shift ;; # handled above: PMIX_LIVE_MUNGED is set
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "live-matrix: unknown option '$1' (--help)" >&2; exit 2 ;;
  esac
done
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
[ "$ci" = 1 ] && [ -z "$baseline" ] && baseline="$repo/vectors/live/observations.json"
if [ -n "$baseline" ]; then
  case "$baseline" in /*) ;; *) baseline="$PWD/$baseline" ;; esac
  [ -s "$baseline" ] || { echo "live-matrix: --baseline: no file $baseline" >&2; exit 2; }
  [ "$baseline" != "$out" ] || { echo "live-matrix: --baseline and --json name one file; write the run elsewhere (--json target/...)" >&2; exit 2; }
fi

say() { echo "live-matrix: $*" >&2; }
die() { echo "live-matrix: error: $*" >&2; exit 1; }
has() { case ",$1," in *",$2,"*) return 0 ;; *) return 1 ;; esac; }
# the pairs of the CI subset (--ci without --servers/--clients): SERVER:CLIENT
CI_PAIRS="plain-4.2.2:4.2.2 plain-5.0.7:5.0.7 plain-6.0.0:6.0.0 plain-6.1.0:6.1.0
  plain-7.0.0rc1:7.0.0rc1 plain-7.0.0rc1:4.2.2 plain-4.2.2:7.0.0rc1 prrte-5.0.0rc1:7.0.0rc1
  pmix-server:7.0.0rc1 pmix-server:4.2.2"
in_ci_subset() {
  [ "$ci" = 1 ] && [ "$explicit" = 0 ] || return 0
  case " $(echo $CI_PAIRS) " in *" $1:$2 "*) return 0 ;; *) return 1 ;; esac
}

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap roots and namespaces)"

# ---- make what is missing ----
missing=()
for r in "${RELEASES[@]}"; do
  bash "$peers" list 2>/dev/null | awk -v r="$r" '$1 == r && $3 == "made" {ok=1} END {exit !ok}' || missing+=("$r")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "releases not made: ${missing[*]} (bash tools/peers.sh make ${missing[*]} [--openpmix-src DIR])"
  [ -n "${CI:-}" ] && die "CI needs every release"
fi
[ -z "$clients" ] && clients="$(printf '%s\n' "${RELEASES[@]}" | grep -vxF -f <(printf '%s\n' "${missing[@]}" "") | paste -sd,)"
if [ -z "$servers" ]; then
  servers="$(for r in ${clients//,/ }; do printf 'plain-%s,' "$r"; done)"
  has "$clients" 7.0.0rc1 && servers="${servers}prrte-5.0.0rc1,"
  servers="${servers}pmix-server"
  if [ "$ci" = 1 ]; then
    say "--ci: the Slurm servers are not in the CI subset (the full run has them)"
  else
    for s in 24.11.5 22.05.8; do
      bash "$live/slurm.sh" made "$s" 2>/dev/null && servers="$servers,slurm-$s"
    done
  fi
fi
say "building: the wire tap (and pmix-server, pmix-peer when used) with cargo, live-client and plain-server per release"
# only what this run uses: the tap always, pmix-server and pmix-peer when their cells run
build=(-p pmix-live --bin pmix-live-tap)
has "$servers" pmix-server && build+=(-p pmix-server --bin pmix-server)
has "$variants" peer && build+=(-p pmix-peer --bin pmix-peer)
(cd "$repo" && cargo build -q --release "${build[@]}")
target="${CARGO_TARGET_DIR:-$repo/target}"
tap="$target/release/pmix-live-tap"
declare -A launchers
for r in ${clients//,/ }; do launchers[$r]="$(bash "$live/build.sh" "$r")"; done
for s in ${servers//,/ }; do case "$s" in plain-*) bash "$live/build.sh" "${s#plain-}" >/dev/null ;; esac; done

# ---- components ----
comps_of() {
  case "$1" in
    4.2.2 | 5.0.7) echo "v20 v21 v3 v4 v41" ;;
    6.0.0) echo "v20 v21 v3 v4 v41 v51" ;;
    6.1.0) echo "v20 v21 v3 v4 v41 v51 v61" ;;
    7.0.0rc1) echo "v21 v3 v4 v41 v51 v61" ;;
    *) echo "" ;;
  esac
}
# the gds and psec modules each release's libpmix has (its component list)
gds_of() {
  case "$1" in
    4.2.2) echo "ds12 ds21 hash" ;;
    5.0.7 | 6.0.0 | 6.1.0) echo "shmem2 hash" ;;
    7.0.0rc1) echo "shmem3 hash" ;;
  esac
}
psec_extra_of() {
  if [ -n "${PMIX_LIVE_MUNGED:-}" ]; then
    case "$1" in 4.2.2 | 5.0.7) echo "munge" ;; esac
    return 0
  fi
  case "$1" in
    4.2.2) echo "munge" ;;
    5.0.7) echo "munge none" ;;
    6.0.0 | 6.1.0 | 7.0.0rc1) echo "none" ;;
  esac
}
# the PMIX_SERVER_URI<N> lines of component C in an environment file: v20 is exported as
# PMIX_SERVER_URI2 by 4.2 and 5.0 servers and as PMIX_SERVER_URI20 by 6.x and later
uri_lines() {
  local n="${1#v}"
  if [ "$n" = 20 ]; then grep -E '^PMIX_SERVER_URI(2|20)=' "$2"; else grep "^PMIX_SERVER_URI$n=" "$2"; fi
}
server_release() {
  case "$1" in
    plain-*) echo "${1#plain-}" ;;
    prrte-5.0.0rc1) echo 7.0.0rc1 ;;
    pmix-server) echo native ;;
    slurm-24.11.5) echo 5.0.7 ;;
    slurm-22.05.8) echo 4.2.2 ;;
  esac
}

# what the launcher of SERVER sets for rank R of the 2-rank job (LIVE_EXPECT_<KEY> lines for
# the client's job-key:* operations); a key left out is not known here and is not judged
expect_env() {
  local server="$1" r="$2"
  echo LIVE_EXPECT_JOB_SIZE=2
  echo LIVE_EXPECT_APPNUM=0
  case "$server" in
    plain-* | pmix-server)
      # one node, both ranks on it (peer/servers/plain-server.c, server/src/job.rs)
      printf '%s\n' LIVE_EXPECT_UNIV_SIZE=2 LIVE_EXPECT_LOCAL_SIZE=2 LIVE_EXPECT_LOCAL_PEERS=0,1 \
        "LIVE_EXPECT_LOCAL_RANK=$r" LIVE_EXPECT_NODEID=0
      ;;
    slurm-*)
      # `srun -N 2`: one rank per node (tools/live/slurm.sh job)
      printf '%s\n' LIVE_EXPECT_UNIV_SIZE=2 LIVE_EXPECT_LOCAL_SIZE=1 "LIVE_EXPECT_LOCAL_PEERS=$r" \
        LIVE_EXPECT_LOCAL_RANK=0 "LIVE_EXPECT_NODEID=$r"
      ;;
    # prrte: where `prun -n 2` places the ranks in the DVM, and its universe, are PRRTE's
  esac
}

mkdir -p "$shared"
work="$(mktemp -d "$shared/run.XXXXXX")"
dvm=""; slurm=""
cleanup() {
  for d in "$work"/cell.*; do [ -f "$d/pid" ] && bash "$live/server.sh" stop --dir "$d" >/dev/null 2>&1; done
  [ -n "$dvm" ] && bash "$here/prrte/dvm.sh" stop --dir "$dvm" >/dev/null 2>&1 || true
  [ -n "$slurm" ] && bash "$live/slurm.sh" stop --slurm "$slurm" >/dev/null 2>&1 || true
  [ -n "${KEEP_LIVE_WORK:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

if has "$servers" prrte-5.0.0rc1; then
  dvm="$work/dvm"
  where=(--nodes n1,n2)
  [ -n "$hostfile" ] && where=(--hostfile "$hostfile" --agent "$agent")
  say "starting a PRRTE DVM (${where[*]})"
  bash "$here/prrte/dvm.sh" start "${where[@]}" --dir "$dvm" >/dev/null || die "the PRRTE DVM did not start"
fi

cells="$work/cells.tsv"; : >"$cells"
n=0
# run one cell: SERVER CLIENT_RELEASE VARIANT FORCED(-|vNN) [SETTING [PLANT]]
# (SETTING: the buffer case, the gds module or the psec module of the variant; PLANT:
# crash or init-fails, a fault planted on purpose)
run_cell() {
  local server="$1" crel="$2" variant="$3" forced="$4" setting="${5:--}" plant="${6:--}" d r upstream port tool_uri line
  n=$((n + 1)); d="$work/cell.$n"; mkdir -p "$d"
  local kind=client
  { [ "$variant" = tool ] || [ "$variant" = peer ]; } && kind=tool
  local row
  row="$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$crel" "$kind" "$server" "$(server_release "$server")" "$variant" "$forced" "$d" "$setting" "$plant")"
  local sargs=(--dir "$d" --timeout 60)
  case "$server" in prrte-*) sargs+=(--dvm "$dvm") ;; slurm-*) sargs+=(--slurm "$slurm") ;; esac
  case "$setting" in server-fully*) sargs+=(--buffer fully) ;; esac
  [ "$plant" = init-fails ] && sargs+=(--plant refuse-clients)
  if ! bash "$live/server.sh" start "$server" "${sargs[@]}" 2>"$d/start.err"; then
    echo "$row" >>"$cells"
    echo "the server did not start: $(tail -n 3 "$d/start.err" | tr '\n' ' ')" >"$d/not_run"
    say "[$n] $kind $crel -> $server ($variant): not run: the server did not start"
    return 0
  fi
  if [ "$forced" != - ] && [ "$variant" = force ] && ! uri_lines "$forced" "$d/env.0" >/dev/null; then
    bash "$live/server.sh" stop --dir "$d" >/dev/null 2>&1 || true
    echo "$row" >>"$cells"
    echo "the server does not offer $forced (no PMIX_SERVER_URI${forced#v}$([ "$forced" = v20 ] && echo ' or PMIX_SERVER_URI2') in its environment)" >"$d/not_run"
    say "[$n] $kind $crel -> $server (force $forced): not run: the server does not offer $forced"
    return 0
  fi
  # one wire tap per rank: under Slurm each node's rank has its own server (slurmstepd)
  local tpids=() ports=()
  for r in 0 1; do
    upstream="$(grep -m1 '^PMIX_SERVER_URI' "$d/env.$r" | sed 's/.*tcp4:\/\///')"
    "$tap" "$upstream" "$d/tap.jsonl" 150 >"$d/tap.$r.port" 2>"$d/tap.$r.err" &
    tpids+=($!)
  done
  for r in 0 1; do
    # the tap prints its port once it listens; on a loaded machine that can take seconds
    local i=0
    while [ ! -s "$d/tap.$r.port" ] && kill -0 "${tpids[$r]}" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
    ports+=("$(head -n1 "$d/tap.$r.port")")
    case "${ports[$r]}" in
      [1-9]*) ;;
      *) echo "the wire tap of rank $r did not start: $(tr '\n' ' ' <"$d/tap.$r.err")" >>"$d/harness.err" ;;
    esac
  done
  port="${ports[0]}"
  if [ "$kind" = tool ]; then
    if [ -s "$d/uri" ]; then tool_uri="$(head -n1 "$d/uri")"; else tool_uri="$(grep -m1 '^PMIX_SERVER_URI41=' "$d/env.0" | cut -d= -f2-)"; fi
    tool_uri="$(echo "$tool_uri" | sed "s/:[0-9]*\$/:$port/")"
    set +e
    if [ "$crel" = pmix-peer ]; then
      echo "$tool_uri" >"$d/peer.uri"
      timeout 40 "$target/release/pmix-peer" live --uri "$d/peer.uri" -c "$setting" --nspace livetool >"$d/tool.out" 2>"$d/tool.err"
    else
      timeout 40 "${launchers[$crel]}/live-client" tool "$tool_uri" livetool >"$d/tool.out" 2>"$d/tool.err"
    fi
    echo $? >"$d/tool.rc"; set -e
  else
    local pids=()
    for r in $(seq 0 1); do
      # the rank's environment, as the variant says, every URI pointed at the tap
      grep '^PMIX_' "$d/env.$r" | sed "s/\(tcp4:\/\/[0-9.]*\):[0-9]*/\1:${ports[$r]}/" >"$d/cenv.$r"
      if [ "$forced" != - ]; then
        grep -v '^PMIX_SERVER_URI[0-9]' "$d/cenv.$r" >"$d/cenv.tmp"
        uri_lines "$forced" "$d/cenv.$r" >>"$d/cenv.tmp"; mv "$d/cenv.tmp" "$d/cenv.$r"
      fi
      [ "$plant" = crash ] && echo PMIX_LIVE_PLANT=segv-after-init >>"$d/cenv.$r"
      case "$variant:$setting" in
        buffer:client-fully) sed -i '/^PMIX_BFROP_BUFFER_TYPE=/d' "$d/cenv.$r"; echo PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC >>"$d/cenv.$r" ;;
        buffer:server-fully-client-default) sed -i '/^PMIX_BFROP_BUFFER_TYPE=/d' "$d/cenv.$r" ;;
        gds:*) sed -i '/^PMIX_GDS_MODULE=/d' "$d/cenv.$r"; echo "PMIX_GDS_MODULE=$setting" >>"$d/cenv.$r" ;;
        psec:*) sed -i '/^PMIX_SECURITY_MODE=/d' "$d/cenv.$r"; echo "PMIX_SECURITY_MODE=$setting" >>"$d/cenv.$r" ;;
      esac
      expect_env "$server" "$r" >>"$d/cenv.$r"
      ( set +e; mapfile -t e <"$d/cenv.$r"
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "${e[@]}" \
          timeout 40 "${launchers[$crel]}/live-client" client >"$d/out.$r" 2>"$d/err.$r"
        echo $? >"$d/rank$r.rc" ) &
      pids+=($!)
    done
    wait "${pids[@]}" 2>/dev/null || true
  fi
  bash "$live/server.sh" stop --dir "$d" >/dev/null 2>&1 || true
  kill "${tpids[@]}" 2>/dev/null || true; wait "${tpids[@]}" 2>/dev/null || true
  echo "$row" >>"$cells"
  local f="$d/out.0"; [ "$kind" = tool ] && f="$d/tool.out"
  local total okc comp
  total="$(grep -c '^OP ' "$f" 2>/dev/null || true)"; okc="$(grep -c '^OP [^ ]* 0 ' "$f" 2>/dev/null || true)"
  comp="$(head -n1 "$d/tap.jsonl" 2>/dev/null | grep -o '"bfrops":"[^"]*"' | cut -d'"' -f4 || true)"
  local label="$variant"
  [ "$forced" = - ] || label="$label $forced"
  [ "$setting" = - ] || [ "$setting" = "$forced" ] || label="$label $setting"
  [ "$plant" = - ] || label="$label, planted: $plant"
  local how rcf="$d/rank0.rc"; [ "$kind" = tool ] && rcf="$d/tool.rc"
  how="$(cat "$rcf" 2>/dev/null || echo none)"
  case "$how" in 124) how="timed out" ;; 129 | 1[3-8][0-9] | 19[01]) how="signal $((how - 128))" ;; none) how="did not run" ;; *) how="exit $how" ;; esac
  echo "live-matrix: [$n] $kind $crel -> $server ($label): ${okc:-0}/${total:-0} operations succeeded, component ${comp:-none}, $how" >&2
}

for server in ${servers//,/ }; do
  srel="$(server_release "$server")"
  case "$server" in
    slurm-*)
      # one cluster at a time (they share the ports of the configuration)
      slurm="$work/${server}"
      say "starting Slurm ${server#slurm-} (munged, slurmctld, slurmd n1 and n2)"
      bash "$live/slurm.sh" start --slurm "$slurm" --version "${server#slurm-}" || die "Slurm ${server#slurm-} did not start"
      ;;
  esac
  for crel in ${clients//,/ }; do
    in_ci_subset "$server" "$crel" || continue
    has "$variants" tool && run_cell "$server" "$crel" tool -
    has "$variants" base && run_cell "$server" "$crel" base -
    if has "$variants" force; then
      scomps="$(comps_of "$srel")"; [ "$srel" = native ] && scomps="v20 v21 v3 v4 v41 v51 v61"
      # every component both offer, but the highest (the base cell already speaks it)
      common=""
      for c in $(comps_of "$crel"); do case " $scomps " in *" $c "*) common="$common $c" ;; esac; done
      top="${common##* }"
      for c in $common; do [ "$c" = "$top" ] || run_cell "$server" "$crel" force "$c"; done
    fi
    if has "$variants" buffer; then
      run_cell "$server" "$crel" buffer - client-fully
      # only a plain server is started by us, so only it can be told to advertise
      case "$server" in
        plain-*)
          run_cell "$server" "$crel" buffer - server-fully
          run_cell "$server" "$crel" buffer - server-fully-client-default
          ;;
      esac
    fi
    if has "$variants" gds; then
      for m in $(gds_of "$crel"); do run_cell "$server" "$crel" gds - "$m"; done
    fi
    if has "$variants" psec; then
      for m in $(psec_extra_of "$crel"); do run_cell "$server" "$crel" psec - "$m"; done
    fi
  done
  for p in ${plants//,/ }; do
    for crel in ${clients//,/ }; do
      case "$p" in
        crash) run_cell "$server" "$crel" base - - crash ;;
        init-fails) case "$server" in plain-*) run_cell "$server" "$crel" base - - init-fails ;; esac ;;
      esac
    done
  done
  if has "$variants" peer; then
    # pmix-peer speaks every component; the server decides which it accepts
    scomps="$(comps_of "$srel")"; [ "$srel" = native ] && scomps="v20 v21 v3 v4 v41 v51 v61"
    top="${scomps##* }"
    for c in $scomps; do
      if [ "$c" = "$top" ]; then run_cell "$server" pmix-peer peer - "$c"; else run_cell "$server" pmix-peer peer "$c" "$c"; fi
    done
  fi
  if [ -n "$slurm" ]; then
    bash "$live/slurm.sh" stop --slurm "$slurm" || die "Slurm ${server#slurm-} did not stop cleanly"
    slurm=""
  fi
done

# ---- provenance and the observations file ----
ver_of() {
  case "$(bash "$peers" kind "$1")" in
    system) echo "host libpmix-dev $(dpkg-query -W -f '${Version}' libpmix-dev)" ;;
    root) local r; r="$(bash "$peers" root "$1")"
      echo "$(basename "$r") root libpmix-dev $(chroot "$r" dpkg-query -W -f '${Version}' libpmix-dev 2>/dev/null)" ;;
    source) echo "built from the v$1 tag tarball ($(bash "$peers" root "$1"))" ;;
  esac
}
{
  printf '{"date": "%s", "host": "%s", "command": "%s", "releases": {' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(uname -srm)" "$cmdline"
  sep=""
  for r in ${clients//,/ }; do printf '%s"%s": "%s"' "$sep" "$r" "$(ver_of "$r")"; sep=", "; done
  has "$variants" peer && printf '%s"pmix-peer": "this repository'"'"'s pmix-peer (%s)"' "$sep" "$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
  for s in 24.11.5 22.05.8; do
    has "$servers" "slurm-$s" || continue
    suite=bookworm; [ "$s" = 24.11.5 ] && suite=trixie
    printf '%s"slurm-%s": "own %s root: %s"' "$sep" "$s" "$suite" "$(cat "$cache/slurm/$suite/.pmix-wire-slurm-ready" 2>/dev/null)"
  done
  has "$servers" prrte-5.0.0rc1 && printf '%s"prrte": "sid root libprrte-bin %s"' "$sep" "$(chroot "$(bash "$peers" root 7.0.0rc1)" dpkg-query -W -f '${Version}' libprrte-bin)"
  printf '}}\n'
} >"$work/provenance.json"
mkdir -p "$(dirname "$out")"
check=(); [ "$ci" = 1 ] && check=(--check)
status=0
python3 "$live/assemble.py" "$cells" "$work/provenance.json" "$out" "${check[@]}" || status=1
say "$n cells; wrote $out"
if [ -n "$baseline" ]; then
  # the gate: always built from these sources, so the verdicts are this tree's
  (cd "$repo" && cargo build -q --release -p pmix-vectorgen --bin pmix-vectors)
  say "comparing with $baseline (one line per cell that got worse)"
  "$target/release/pmix-vectors" live --observations "$out" --baseline "$baseline" || status=1
elif "$target/release/pmix-vectors" live --help >/dev/null 2>&1; then
  "$target/release/pmix-vectors" live --observations "$out" || true
fi
exit "$status"
