#!/usr/bin/env bash
# server.sh: start and stop one real PMIx server hosting one job, for the live matrix
# (tools/live-matrix.sh). The job's ranks are not started here: each rank's environment
# is written to a file, and the matrix starts a client of any release with it (the way a
# resource manager's task environment is handed to a process).
#
#   bash tools/live/server.sh start SERVER --dir DIR [--np 2] [--timeout 120]
#       [--dvm DVMDIR] [--slurm SLURMDIR] [--buffer fully] [--plant refuse-clients]
#     SERVER is one of
#       plain-RELEASE    peer/servers/plain-server.c built against RELEASE (4.2.2 5.0.7
#                        6.0.0 6.1.0 7.0.0rc1) by tools/live/build.sh, in job mode
#       prrte-5.0.0rc1   a `prun -n NP` job of env holders in the DVM of DVMDIR
#                        (tools/prrte/dvm.sh start); the DVM is not stopped here
#       pmix-server      `pmix-server launch -n NP --env-only` (target/release)
#       slurm-24.11.5    an `srun --mpi=pmix -N NP` step of env holders on the cluster of
#       slurm-22.05.8    SLURMDIR (tools/live/slurm.sh start)
#     --buffer fully (plain servers only): the server is started with
#       PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC, so it uses and advertises the
#       fully-described buffer type.
#     --plant refuse-clients (plain servers only): a fault planted on purpose
#       (PMIX_PLAIN_PLANT=refuse-clients): the server refuses every client, so every
#       PMIx_Init fails (tools/live-matrix.sh --plant init-fails).
#     DIR must lie under the shared folder (PMIX_LIVE_SHARED, default /tmp/pmix-live). Writes
#       DIR/env.R    rank R's PMIX_* environment, KEY=VALUE lines
#       DIR/uri      the URI a tool connects to (line 1), when the server takes tools
#       DIR/pid      the process that holds the job (stop ends it)
#       DIR/server.log
#       DIR/server.rc  (plain and pmix-server) the server's exit status once it ended;
#                      DIR/server.stopped when `stop` had to end it
#     and waits (bounded by --timeout) until every env.R is there. Exit 0 when ready.
#   bash tools/live/server.sh stop --dir DIR [--timeout 20]
#       Lets the job end (env holders are released), waits (bounded) for the holder, then
#       kills its process group. Only this job's processes are touched.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
peers="$repo/tools/peers.sh"
shared="${PMIX_LIVE_SHARED:-/tmp/pmix-live}"

say() { echo "live server: $*" >&2; }
die() { echo "live server: error: $*" >&2; exit 1; }
usage() { sed -n '2,33p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

cmd="${1:-}"; [ $# -gt 0 ] && shift
server=""
if [ "$cmd" = start ]; then server="${1:?start SERVER --dir DIR}"; shift; fi
dir="" np=2 timeout="" dvm="" slurm="" buffer="" plant=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="${2:?}"; shift 2 ;;
    --np) np="${2:?}"; shift 2 ;;
    --timeout) timeout="${2:?}"; shift 2 ;;
    --dvm) dvm="${2:?}"; shift 2 ;;
    --slurm) slurm="${2:?}"; shift 2 ;;
    --buffer) buffer="${2:?}"; shift 2 ;;
    --plant) plant="${2:?}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1'" ;;
  esac
done
[ -n "$dir" ] || die "--dir DIR is required"

# The env holder a launcher starts as each rank: write the PMIX_* environment to
# HOLD/env.RANK, then wait (bounded) until HOLD/done appears.
holder_script() {
  cat <<'EOF'
d="$1"; r="${PMIX_RANK:-${SLURM_PROCID:-x}}"
env | grep '^PMIX_' >"$d/env.$r.tmp" && mv "$d/env.$r.tmp" "$d/env.$r"
i=0; while [ ! -e "$d/done" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
EOF
}

# wait until DIR/env.0 .. env.NP-1 exist (copying them from FROM when given)
await_envs() {
  local from="$1" deadline=$((SECONDS + ${timeout:-120})) r all
  while [ $SECONDS -lt "$deadline" ]; do
    all=1
    for r in $(seq 0 $((np - 1))); do
      if [ -n "$from" ] && [ -s "$from/env.$r" ] && [ ! -s "$dir/env.$r" ]; then cp "$from/env.$r" "$dir/env.$r"; fi
      [ -s "$dir/env.$r" ] || all=0
    done
    [ "$all" = 1 ] && return 0
    kill -0 "$(cat "$dir/pid")" 2>/dev/null || { say "the server ended early:"; tail -n 20 "$dir/server.log" >&2; return 1; }
    sleep 0.1
  done
  say "no environment for every rank within ${timeout:-120}s:"; tail -n 20 "$dir/server.log" >&2
  return 1
}

case "$cmd" in
  start)
    timeout="${timeout:-120}"
    mkdir -p "$dir"; dir="$(cd "$dir" && pwd)"
    case "$dir/" in "$shared"/*) ;; *) die "--dir must lie under $shared (got $dir)" ;; esac
    rm -f "$dir"/env.* "$dir/uri" "$dir/pid" "$dir/hold" "$dir/done" "$dir/server.rc" "$dir/server.stopped"
    [ -z "$buffer" ] || case "$server" in plain-*) ;; *) die "--buffer is for plain servers only" ;; esac
    [ -z "$plant" ] || case "$server:$plant" in plain-*:refuse-clients) ;; *) die "--plant: only refuse-clients, for plain servers" ;; esac
    case "$server" in
      plain-*)
        rel="${server#plain-}"
        bin="$(bash "$here/build.sh" "$rel")/plain-server"
        # the server exits by itself once every rank has finalized (or after the timeout)
        senv=()
        case "$buffer" in
          "") ;;
          fully) senv=(PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC) ;;
          *) die "--buffer: only 'fully'" ;;
        esac
        [ -n "$plant" ] && senv+=(PMIX_PLAIN_PLANT="$plant")
        # its exit status goes to DIR/server.rc (128+N: ended by signal N), for the cell's record
        setsid sh -c '"$@"; echo $? >"$0/server.rc"' "$dir" env "${senv[@]+"${senv[@]}"}" "$bin" "$dir/uri" "$timeout" live "$np" "$dir" </dev/null >"$dir/server.log" 2>&1 &
        echo $! >"$dir/pid"
        await_envs ""
        i=0; while [ ! -s "$dir/uri" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        ;;
      pmix-server)
        bin="${CARGO_TARGET_DIR:-$repo/target}/release/pmix-server"
        # always ask cargo: a binary left from older sources would answer for them
        (cd "$repo" && cargo build -q --release -p pmix-server --bin pmix-server)
        setsid sh -c '"$@"; echo $? >"$0/server.rc"' "$dir" "$bin" launch -n "$np" --nspace live --env-only --report-uri "$dir/uri" --timeout "$timeout" \
          </dev/null >"$dir/server.out" 2>"$dir/server.log" &
        echo $! >"$dir/pid"
        deadline=$((SECONDS + timeout))
        while [ $SECONDS -lt $deadline ] && [ "$(grep -c '^# rank' "$dir/server.out" 2>/dev/null)" -lt "$np" ]; do sleep 0.1; done
        sleep 0.2
        awk -v d="$dir" '/^# rank /{f=d"/env."$3; next} f && /^PMIX_/{print > f}' "$dir/server.out"
        await_envs ""
        ;;
      prrte-5.0.0rc1)
        [ -n "$dvm" ] && [ -s "$dvm/uri" ] || die "prrte needs --dvm DIR of a running DVM (tools/prrte/dvm.sh start)"
        root="$(bash "$peers" root 7.0.0rc1)"
        name="$(basename "$dir")"; inner="/tmp/pmix-live-hold/$name"
        rm -rf "${root:?}$inner"; mkdir -p "$root$inner"
        holder_script >"$root$inner/hold.sh"
        echo "$root$inner" >"$dir/hold"
        rootdir="$(cat "$dvm/rootdir")"
        head -n1 "$dvm/uri" >"$dir/uri"
        setsid bash "$peers" run 7.0.0rc1 -- prun --dvm-uri "file:$rootdir/uri" -n "$np" \
          sh "$inner/hold.sh" "$inner" </dev/null >"$dir/server.log" 2>&1 &
        echo $! >"$dir/pid"
        await_envs "$root$inner"
        ;;
      slurm-*)
        [ -n "$slurm" ] || die "$server needs --slurm DIR of a running cluster (tools/live/slurm.sh start)"
        bash "$here/slurm.sh" job --slurm "$slurm" --np "$np" --dir "$dir" --timeout "$timeout"
        await_envs "$(cat "$dir/hold")"
        ;;
      *) die "unknown server '$server' (plain-RELEASE, prrte-5.0.0rc1, pmix-server, slurm-24.11.5, slurm-22.05.8)" ;;
    esac
    ;;
  stop)
    timeout="${timeout:-20}"
    [ -f "$dir/pid" ] || exit 0
    pid="$(cat "$dir/pid")"
    [ -s "$dir/hold" ] && touch "$(cat "$dir/hold")/done"
    touch "$dir/done"
    # a job whose ranks all finalized ends by itself; one that never ran (a tool cell) is
    # told to end (SIGTERM to its process group), then killed when the bound is over
    i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
    # the harness ends it from here on: how it then ends is not the server's doing
    kill -0 "$pid" 2>/dev/null && { touch "$dir/server.stopped"; kill -TERM -- "-$pid" 2>/dev/null; }
    deadline=$((SECONDS + timeout))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { say "killing the process group $pid"; kill -KILL -- "-$pid" 2>/dev/null || true; }
    [ -s "$dir/hold" ] && rm -rf "$(cat "$dir/hold")"
    rm -f "$dir/pid"
    ;;
  "" | -h | --help) usage ;;
  *) die "unknown command '$cmd' (valid: start stop)" ;;
esac
