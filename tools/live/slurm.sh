#!/usr/bin/env bash
# slurm.sh: a real Slurm with its PMIx plugin, from Debian's package archive alone, in a
# debootstrap root of its own (the host stays clean), for the live matrix.
#
#   bash tools/live/slurm.sh make VERSION        make the root (idempotent; about 2 minutes)
#   bash tools/live/slurm.sh made VERSION        exit 0 when it is made
#   bash tools/live/slurm.sh start --slurm DIR --version VERSION [--timeout 60]
#   bash tools/live/slurm.sh job --slurm DIR --np N --dir JOBDIR [--timeout 60]
#   bash tools/live/slurm.sh stop --slurm DIR [--timeout 20]
#
# VERSION  suite     plugin         libpmix
# 24.11.5  trixie    mpi_pmix_v5    5.0.7
# 22.05.8  bookworm  mpi_pmix_v4    4.2.2
#
# start: one mount namespace holds the root (/dev, /proc, /sys and a tmpfs /run mounted);
# in it munged, slurmctld (UTS namespace "ctl") and two slurmd, n1 and n2, each in its own
# UTS namespace with a private tmpfs /tmp (two slurmd on one /tmp collide on the PMIx
# application directory). Waits (bounded) until both nodes are idle. Every daemon's pid is
# written to DIR/pids ("name pid" lines); stop ends each of them, then the namespace
# holder, kills whatever else lives in the cluster's mount namespaces (a step's
# slurmstepd that outlived its slurmd, recorded as "stray-NAME pid"), and checks that none
# is left.
# job: an `srun --mpi=pmix -N 2 -n N` step of environment holders (tools/live/server.sh's
# protocol: JOBDIR/pid, JOBDIR/hold; the holders write env.R there and wait for "done").
# Cache: $PMIX_WIRE_CACHE/slurm/SUITE. Needs root.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${PMIX_WIRE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmix-wire}"
mirror="${PMIX_WIRE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

say() { echo "slurm: $*" >&2; }
die() { echo "slurm: error: $*" >&2; exit 1; }

suite_of() { case "$1" in 24.11.5) echo trixie ;; 22.05.8) echo bookworm ;; *) die "unknown Slurm version '$1' (24.11.5 22.05.8)" ;; esac; }
plugin_of() { case "$1" in 24.11.5) echo mpi_pmix_v5.so ;; 22.05.8) echo mpi_pmix_v4.so ;; esac; }
root_of() { echo "$cache/slurm/$(suite_of "$1")"; }
BASE=libpmix-dev,automake,gcc,libc6-dev,pkg-config,util-linux,procps,iproute2
SLURM_PKGS="slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge"

# a command inside a root, in a throw-away private mount namespace
in_root() {
  local r="$1"; shift
  unshare --mount --fork --kill-child -- sh -c '
    r="$1"; shift
    mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" || exit 125
    exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"' sh "$r" "$@"
}

cmd="${1:-}"; [ $# -gt 0 ] && shift
version="" dir="" np=2 jobdir="" timeout=""
case "$cmd" in make | made) version="${1:?$cmd VERSION}"; shift ;; esac
while [ $# -gt 0 ]; do
  case "$1" in
    --slurm) dir="${2:?}"; shift 2 ;;
    --version) version="${2:?}"; shift 2 ;;
    --np) np="${2:?}"; shift 2 ;;
    --dir) jobdir="${2:?}"; shift 2 ;;
    --timeout) timeout="${2:?}"; shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done

made() {
  local r; r="$(root_of "$1")"
  [ -f "$r/.pmix-wire-slurm-ready" ] && [ -n "$(find "$r/usr/lib" -name "$(plugin_of "$1")" -print -quit 2>/dev/null)" ]
}

# enter the session's namespace (chroot'ed, at /)
enter() { nsenter -t "$(awk '$1 == "holder" {print $2}' "$dir/pids")" -m -r -w -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }

pid_alive() { kill -0 "$1" 2>/dev/null; }

case "$cmd" in
  made) made "$version" ;;
  make)
    [ "$(id -u)" -eq 0 ] || die "needs root"
    made "$version" && { say "$version: ready at $(root_of "$version")"; exit 0; }
    r="$(root_of "$version")"; suite="$(suite_of "$version")"
    mkdir -p "$(dirname "$r")"
    if [ ! -x "$r/usr/bin/apt-get" ]; then
      rm -rf "$r.tmp"
      say "$version: debootstrap $suite into $r (about 1.5 minutes; log $r.log)"
      debootstrap --variant=minbase --include="$BASE" "$suite" "$r.tmp" "$mirror" >"$r.log" 2>&1 \
        || { tail -n 5 "$r.log" >&2; die "debootstrap failed (retry: bash tools/live/slurm.sh make $version)"; }
      mv "$r.tmp" "$r"
    fi
    say "$version: apt-get install $SLURM_PKGS inside the root"
    in_root "$r" apt-get -o Acquire::Check-Valid-Until=false update -qq >>"$r.log" 2>&1
    # shellcheck disable=SC2086
    in_root "$r" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $SLURM_PKGS >>"$r.log" 2>&1 \
      || die "installing Slurm failed (log $r.log)"
    got="$(in_root "$r" dpkg-query -W -f '${Version}' slurmd)"
    case "$got" in "$version"*) ;; *) die "the $suite archive has slurmd $got, not $version" ;; esac
    made_plugin="$(find "$r/usr/lib" -name "$(plugin_of "$version")" -print -quit)"
    [ -n "$made_plugin" ] || die "no $(plugin_of "$version") in slurm-wlm-basic-plugins $got"
    echo "slurmd $got libpmix $(in_root "$r" dpkg-query -W -f '${Version}' libpmix-dev)" >"$r/.pmix-wire-slurm-ready"
    say "$version: ready at $r ($(cat "$r/.pmix-wire-slurm-ready"))"
    ;;
  start)
    [ -n "$dir" ] && [ -n "$version" ] || die "start --slurm DIR --version VERSION"
    made "$version" || die "Slurm $version is not made: bash tools/live/slurm.sh make $version"
    timeout="${timeout:-60}"
    r="$(root_of "$version")"
    mkdir -p "$dir"; dir="$(cd "$dir" && pwd)"
    [ -s "$dir/pids" ] && die "a cluster may still run for $dir (stop it first)"
    echo "$version" >"$dir/version"; echo "$r" >"$dir/root"
    host="$(hostname)"
    mkdir -p "$r/etc/slurm" "$r/var/spool/slurmctld" "$r/var/spool/slurmd" "$r/var/log/slurm" "$r/opt/pmix-live-hold"
    cat >"$r/etc/slurm/slurm.conf" <<EOF
# Two logical nodes on one machine, for the live matrix (made by tools/live/slurm.sh)
ClusterName=live
SlurmctldHost=ctl(127.0.0.1)
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd-%n.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
MpiDefault=none
ReturnToService=2
NodeName=n1 NodeAddr=127.0.0.1 Port=16821 CPUs=2 RealMemory=1000 State=UNKNOWN
NodeName=n2 NodeAddr=127.0.0.1 Port=16822 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=p Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
    # srun runs under the host's name: it must resolve, or every step stalls for a minute
    printf '127.0.0.1 localhost ctl n1 n2 %s\n' "$host" >"$r/etc/hosts"
    [ -s "$r/etc/munge/munge.key" ] || { mkdir -p "$r/etc/munge"; head -c 1024 /dev/urandom >"$r/etc/munge/munge.key"; }
    : >"$dir/pids"
    # the namespace holder: everything else enters its mount namespace
    setsid unshare --mount --fork -- sh -c '
      r="$1"
      mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" &&
        mount -t tmpfs tmpfs "$r/run" || exit 125
      exec chroot "$r" sleep infinity' sh "$r" </dev/null >"$dir/holder.log" 2>&1 &
    upid=$!
    i=0; hpid=""
    while [ -z "$hpid" ] && [ $i -lt 50 ]; do hpid="$(pgrep -P "$upid" || true)"; sleep 0.1; i=$((i + 1)); done
    [ -n "$hpid" ] || die "the namespace holder did not start: $(cat "$dir/holder.log")"
    echo "holder $hpid" >>"$dir/pids"; echo "unshare $upid" >>"$dir/pids"
    enter sh -c 'chown -R munge:munge /etc/munge /var/lib/munge /var/log/munge 2>/dev/null; mkdir -p /run/munge && chown munge:munge /run/munge && chmod 600 /etc/munge/munge.key'
    enter runuser -u munge -- munged || die "munged did not start"
    i=0; while [ ! -s "/proc/$hpid/root/run/munge/munged.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    echo "munged $(enter cat /run/munge/munged.pid)" >>"$dir/pids"
    enter sh -c 'munge -n | unmunge' >/dev/null || die "munge does not work"
    start_daemon() {
      local name="$1"; shift
      setsid nsenter -t "$hpid" -m -r -w -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@" \
        </dev/null >"$dir/$name.out" 2>&1 &
      echo "$name $!" >>"$dir/pids"
    }
    # -c: a fresh cluster each time; the state a previous cluster saved in the root's spool
    # (a job whose step never ended, e.g. killed by stop) would keep the nodes busy
    start_daemon slurmctld unshare --uts -- sh -c 'hostname ctl; exec slurmctld -D -i -c'
    sleep 1
    for node in n1 n2; do
      start_daemon "slurmd-$node" unshare --uts --mount --propagation unchanged -- \
        sh -c "hostname $node; mount -t tmpfs tmpfs /tmp && exec slurmd -D -N $node"
    done
    deadline=$((SECONDS + timeout))
    while [ $SECONDS -lt $deadline ]; do
      idle="$(enter sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l || true)"
      [ "$idle" -ge 2 ] && break
      sleep 0.5
    done
    if [ "${idle:-0}" -lt 2 ]; then
      say "the nodes are not idle within ${timeout}s:"; enter sinfo -N >&2 || true
      tail -n 5 "$r/var/log/slurm/slurmctld.log" >&2 || true
      bash "${BASH_SOURCE[0]}" stop --slurm "$dir" >&2 || true
      exit 1
    fi
    say "Slurm $version up: $(awk '{printf "%s=%s ", $1, $2}' "$dir/pids")"
    ;;
  job)
    [ -n "$dir" ] && [ -n "$jobdir" ] || die "job --slurm DIR --dir JOBDIR"
    timeout="${timeout:-60}"
    r="$(cat "$dir/root")"
    name="$(basename "$jobdir")"; inner="/opt/pmix-live-hold/$name"
    rm -rf "${r:?}$inner"; mkdir -p "$r$inner"
    # the env holder of tools/live/server.sh (rank from PMIX_RANK, else SLURM_PROCID)
    cat >"$r$inner/hold.sh" <<'EOF'
d="$1"; r="${PMIX_RANK:-${SLURM_PROCID:-x}}"
env | grep '^PMIX_' >"$d/env.$r.tmp" && mv "$d/env.$r.tmp" "$d/env.$r"
i=0; while [ ! -e "$d/done" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i + 1)); done
EOF
    echo "$r$inner" >"$jobdir/hold"
    hpid="$(awk '$1 == "holder" {print $2}' "$dir/pids")"
    setsid nsenter -t "$hpid" -m -r -w -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      timeout "$timeout" srun --mpi=pmix -N 2 -n "$np" sh "$inner/hold.sh" "$inner" \
      </dev/null >"$jobdir/server.log" 2>&1 &
    echo $! >"$jobdir/pid"
    ;;
  stop)
    [ -n "$dir" ] || die "stop --slurm DIR"
    timeout="${timeout:-20}"
    [ -s "$dir/pids" ] || exit 0
    # the cluster's mount namespaces (the holder's, each node's), read while its daemons
    # live; never this shell's own (the unshare line lives in the caller's namespace)
    mine="$(readlink /proc/self/ns/mnt)"
    cluster_ns="$(while read -r name pid; do
      [ "$name" != unshare ] && pid_alive "$pid" && readlink "/proc/$pid/ns/mnt"
    done <"$dir/pids" | sort -u | grep -vxF "$mine" || true)"
    # daemons first (slurmd, slurmctld, munged), then the holder and its unshare
    for name in slurmd-n1 slurmd-n2 slurmctld munged holder unshare; do
      pid="$(awk -v n="$name" '$1 == n {print $2}' "$dir/pids")"
      [ -n "$pid" ] && pid_alive "$pid" && kill -TERM "$pid" 2>/dev/null || true
      if [ "$name" = slurmctld ] || [ "$name" = slurmd-n2 ]; then sleep 0.3; fi
    done
    # what no pid line names but lives in the cluster's namespaces: a step's slurmstepd
    # outlives its slurmd when the step's PMIx server never saw its client connect (e.g. a
    # munge credential made with another key); it blocks SIGTERM, so it is killed, and
    # tracked like the daemons
    if [ -n "$cluster_ns" ]; then
      for p in /proc/[0-9]*; do
        pid="${p#/proc/}"; ns="$(readlink "$p/ns/mnt" 2>/dev/null)" || continue
        grep -qxF "$ns" <<<"$cluster_ns" || continue
        awk -v p="$pid" '$2 == p {f = 1} END {exit !f}' "$dir/pids" && continue
        echo "stray-$(tr -c 'a-zA-Z0-9_.\n-' _ <"$p/comm" 2>/dev/null || echo proc) $pid" >>"$dir/pids"
        kill -KILL "$pid" 2>/dev/null || true
      done
    fi
    deadline=$((SECONDS + timeout)); left=""
    while [ $SECONDS -lt $deadline ]; do
      left=""
      while read -r name pid; do pid_alive "$pid" && left="$left $name=$pid"; done <"$dir/pids"
      [ -z "$left" ] && break
      sleep 0.2
    done
    if [ -n "$left" ]; then
      say "still alive after ${timeout}s, killing:$left"
      while read -r name pid; do pid_alive "$pid" && kill -KILL "$pid" 2>/dev/null; done <"$dir/pids" || true
      sleep 0.5
    fi
    left=""
    while read -r name pid; do pid_alive "$pid" && left="$left $name=$pid"; done <"$dir/pids"
    [ -z "$left" ] || die "could not stop:$left"
    say "stopped: $(awk '{printf "%s=%s ", $1, $2}' "$dir/pids")"
    mv "$dir/pids" "$dir/pids.stopped"
    ;;
  *) die "unknown command '$cmd' (valid: make made start job stop)" ;;
esac
