#!/usr/bin/env bash
# dvm.sh: start and stop a real PRRTE 5.0.0rc1 DVM (OpenPMIx 7.0.0rc1) with several logical
# nodes on one machine, inside the sid root made by `bash tools/peers.sh make 7.0.0rc1`.
#
#   bash tools/prrte/dvm.sh start --nodes n1,n2,n3,n4 --dir DIR [--slots 2] [--timeout 60]
#       Starts `prte` (not daemonized) inside the root with `--host n1:S,n2:S,...`,
#       `--report-uri`, `--prtemca prte_elastic_mode 1` and a fake ssh agent that runs each
#       `prted` under `unshare --uts` with the node's name as its hostname. Waits (bounded)
#       for the URI, one prted per node and prte's "DVM ready", then prints the URI on stdout and writes:
#         DIR/uri       the server's URI file as written by --report-uri: line 1 the URI,
#                       e.g. `prte-vm-1234@0.0;tcp4://127.0.0.1:40123`, line 2 `v7.0.0rc1`
#         DIR/pid       pid of the process that holds the DVM (stop kills it as last resort)
#         DIR/rootdir   the directory inside the root that holds agent, log and uri
#         DIR/prte.log  prte's stdout and stderr
#       Exit status 0 when the DVM is ready; otherwise non-zero, with the log's tail on stderr
#       and the DVM stopped.
#   bash tools/prrte/dvm.sh start --hostfile FILE --dir DIR [--agent fake|ssh] [--timeout 60]
#       The same with the nodes of a hostfile (PRRTE's format: `name [slots=N]` lines) passed
#       to prte as --hostfile. With `--agent ssh` prte starts each prted over real ssh (a
#       real cluster: the root's prted must exist at the same path on every host, and the
#       hosts must reach each other); the default `fake` agent stands in for ssh on one
#       machine, each hostfile name becoming a UTS namespace (how the tests run this path).
#   bash tools/prrte/dvm.sh stop --dir DIR [--timeout 20]
#       `pterm.prrte --dvm-uri file:...` inside the root, waits (bounded) for prte and this
#       DVM's prted daemons to leave, then kills what is left (only this DVM's processes).
#
# Needs root (mount and UTS namespaces). PRTE_ALLOW_RUN_AS_ROOT(_CONFIRM) come from
# `peers.sh run`. Each started DVM is independent: several can run at once (distinct DIRs).
# PMIX_WIRE_CACHE is passed through to peers.sh.
#
# Remember: a spawn sent before the PMIX_DVM_IS_READY event of an allocation hangs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
peers="$repo/tools/peers.sh"
release=7.0.0rc1

say() { echo "dvm: $*" >&2; }
die() { echo "dvm: error: $*" >&2; exit 1; }
usage() { sed -n '2,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

cmd="${1:-}"; [ $# -gt 0 ] && shift
nodes="" dir="" slots=2 timeout="" hostfile="" agent=fake
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes="${2:?--nodes needs a value}"; shift 2 ;;
    --dir) dir="${2:?--dir needs a value}"; shift 2 ;;
    --slots) slots="${2:?--slots needs a value}"; shift 2 ;;
    --timeout) timeout="${2:?--timeout needs a value}"; shift 2 ;;
    --hostfile) hostfile="${2:?--hostfile needs a file}"; shift 2 ;;
    --agent) agent="${2:?--agent needs fake or ssh}"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option '$1' (valid: --nodes --hostfile --agent --dir --slots --timeout)" ;;
  esac
done

root="$(bash "$peers" root "$release" 2>/dev/null)" || die "no $release root: bash tools/peers.sh make $release"
[ -x "$root/usr/bin/prte" ] || die "no prte in $root: bash tools/peers.sh make $release"

# The agent PRRTE's ssh launcher calls as `AGENT [ssh options] HOST CMD...`.
write_agent() {
  cat >"$1" <<'EOF'
#!/bin/sh
# Fake ssh for PRRTE: skip ssh options, then run CMD in a new UTS namespace named HOST.
while [ $# -gt 0 ]; do
  case "$1" in
    -o | -p | -l | -i | -F | -E) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
host="$1"; shift
exec unshare --uts sh -c 'hostname "$0" && exec sh -c "$*"' "$host" "$@"
EOF
  chmod 755 "$1"
}

# Pids of this DVM's processes: prte itself and every prted whose command line names its
# namespace (prted gets the HNP's URI on its command line).
dvm_pids() {
  local ns="$1"
  [ -n "$ns" ] || return 0
  pgrep -f -- "$ns@" || true
}

case "$cmd" in
  start)
    case "$agent" in fake | ssh) ;; *) die "--agent: fake or ssh (got '$agent')" ;; esac
    if [ -n "$hostfile" ]; then
      [ -z "$nodes" ] || die "--nodes and --hostfile exclude each other"
      [ -s "$hostfile" ] || die "--hostfile: $hostfile is missing or empty"
      nodes="$(grep -v '^[[:space:]]*#' "$hostfile" | awk 'NF {print $1}' | paste -sd,)"
    fi
    [ -n "$nodes" ] || die "start needs --nodes n1,n2,... or --hostfile FILE"
    [ -n "$dir" ] || die "start needs --dir DIR"
    [[ "$nodes" =~ ^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*$ ]] || die "--nodes: comma-separated names of letters, digits, _ and - (got '$nodes')"
    [[ "$slots" =~ ^[0-9]+$ ]] || die "--slots: a number (got '$slots')"
    timeout="${timeout:-60}"
    mkdir -p "$dir"; dir="$(cd "$dir" && pwd)"
    [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null && die "a DVM already runs for $dir (pid $(cat "$dir/pid")); stop it first"
    rm -f "$dir/uri" "$dir/pid" "$dir/rootdir"
    inner="$(mktemp -d "$root/tmp/pmix-wire-dvm.XXXXXX")"; rel="/tmp/$(basename "$inner")"
    echo "$rel" >"$dir/rootdir"
    write_agent "$inner/fakessh"
    if [ -n "$hostfile" ]; then
      cp "$hostfile" "$inner/hostfile"; where=(--hostfile "$rel/hostfile")
    else
      where=(--host "$(echo "$nodes" | sed "s/\([^,]*\)/\1:$slots/g")")
    fi
    launch=(--prtemca plm_ssh_agent "$rel/fakessh")
    [ "$agent" = ssh ] && launch=()
    say "starting prte with ${where[*]} over the $agent agent (root $root, files in $inner)"
    setsid bash "$peers" run "$release" -- prte --report-uri "$rel/uri" "${where[@]}" \
      "${launch[@]}" --prtemca prte_elastic_mode 1 \
      </dev/null >"$dir/prte.log" 2>&1 &
    echo $! >"$dir/pid"
    n_nodes="$(echo "$nodes" | tr ',' '\n' | wc -l)"
    deadline=$((SECONDS + timeout))
    ready=0
    while [ $SECONDS -lt $deadline ]; do
      kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
      if [ -s "$inner/uri" ]; then
        ns="$(head -n1 "$inner/uri" | sed 's/;.*//; s/@.*//')"
        n_prted="$(pgrep -f -- "prted.*$ns@" | wc -l || true)"
        # over real ssh the daemons run on other hosts: prte's own "DVM ready" is the sign
        [ "$agent" = ssh ] && n_prted="$n_nodes"
        # prte prints "DVM ready" once every daemon has reported in
        if [ "$n_prted" -ge "$n_nodes" ] && grep -q "DVM ready" "$dir/prte.log"; then ready=1; break; fi
      fi
      sleep 0.2
    done
    if [ "$ready" != 1 ]; then
      say "DVM not ready within ${timeout}s; prte.log tail:"
      tail -n 20 "$dir/prte.log" >&2 || true
      bash "${BASH_SOURCE[0]}" stop --dir "$dir" >&2 || true
      exit 1
    fi
    cp "$inner/uri" "$dir/uri"
    head -n1 "$dir/uri"
    ;;
  stop)
    [ -n "$dir" ] || die "stop needs --dir DIR"
    timeout="${timeout:-20}"
    [ -f "$dir/rootdir" ] || die "$dir/rootdir missing: nothing was started there"
    rel="$(cat "$dir/rootdir")"; pid="$(cat "$dir/pid" 2>/dev/null || true)"
    ns=""
    [ -s "$root$rel/uri" ] && ns="$(head -n1 "$root$rel/uri" | sed 's/;.*//; s/@.*//')"
    if [ -s "$root$rel/uri" ] && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      timeout "$timeout" bash "$peers" run "$release" -- pterm.prrte --dvm-uri "file:$rel/uri" >/dev/null 2>&1 || say "pterm.prrte failed or timed out"
    fi
    deadline=$((SECONDS + timeout))
    while [ $SECONDS -lt $deadline ]; do
      alive=""
      [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=1
      [ -n "$(dvm_pids "$ns")" ] && alive=1
      [ -z "$alive" ] && break
      sleep 0.2
    done
    # Last resort: only this DVM's processes (its process group and its namespace's daemons).
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && { say "killing process group $pid"; kill -KILL -- "-$pid" 2>/dev/null || true; }
    left="$(dvm_pids "$ns")"
    [ -n "$left" ] && { say "killing leftover daemons: $left"; kill -KILL $left 2>/dev/null || true; }
    rm -f "$dir/pid"
    rm -rf "${root:?}$rel"
    say "stopped"
    ;;
  "" | -h | --help) usage ;;
  *) die "unknown command '$cmd' (valid: start stop)" ;;
esac
