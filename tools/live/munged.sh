#!/usr/bin/env bash
# munged.sh: a munge daemon for the live matrix's psec munge cells, visible to the clients
# and servers of one command and to nothing else on the machine.
#
#   bash tools/live/munged.sh run [--dir DIR] [--key-of VERSION] -- COMMAND...
#
# Starts munged from the Slurm 24.11.5 root (tools/live/slurm.sh make 24.11.5: the host has
# no munged), with that root's key (/etc/munge/munge.key, the key its Slurm cluster's own
# munged uses; --key-of 22.05.8: the Slurm 22.05.8 root's), its socket in DIR (default: a
# new folder under the shared folder PMIX_LIVE_SHARED, /tmp/pmix-live, which every
# release's root sees). Then runs COMMAND in
# a private mount namespace where the socket is at libmunge's default path,
# /run/munge/munge.socket.2, both on the host (4.2.2) and in the 5.0.7 root (trixie), with
# PMIX_LIVE_MUNGED="the Slurm VERSION root's key" in its environment (the live matrix
# says so in the munge cells' notes); stops munged (by its pid) when COMMAND ends, and
# exits with COMMAND's status. The only lasting change: the empty folders /run/munge and
# ROOT/run/munge, created as mount points when missing (without a socket in them, libmunge
# finds no daemon, as before).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
shared="${PMIX_LIVE_SHARED:-/tmp/pmix-live}"
die() { echo "munged.sh: error: $*" >&2; exit 1; }

[ "${1:-}" = run ] || { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }
shift
dir="" keyof=24.11.5
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="${2:?}"; shift 2 ;;
    --key-of) keyof="${2:?}"; shift 2 ;;
    --) shift; break ;;
    *) die "unknown option '$1'" ;;
  esac
done
[ $# -gt 0 ] || die "run needs a command after --"
[ "$(id -u)" -eq 0 ] || die "needs root (chroot, mount namespaces)"
bash "$here/slurm.sh" made 24.11.5 || die "munged comes from the Slurm 24.11.5 root: bash tools/live/slurm.sh make 24.11.5"
sroot="${PMIX_WIRE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmix-wire}/slurm/trixie"
croot="$(bash "$repo/tools/peers.sh" root 5.0.7)"
mkdir -p "$shared"
[ -n "$dir" ] || dir="$(mktemp -d "$shared/munge.XXXXXX")"
mkdir -p "$dir"; dir="$(cd "$dir" && pwd)"
case "$dir/" in "$shared"/*) ;; *) die "--dir must lie under $shared (got $dir)" ;; esac
chmod 755 "$dir"
# the key munged reads, inside the root: the root's own, or a copy of another root's in DIR
keyfile=/etc/munge/munge.key
if [ "$keyof" != 24.11.5 ]; then
  bash "$here/slurm.sh" made "$keyof" || die "--key-of $keyof: bash tools/live/slurm.sh make $keyof"
  case "$keyof" in 22.05.8) kroot=bookworm ;; *) die "--key-of: 24.11.5 or 22.05.8" ;; esac
  install -m 600 "${sroot%/trixie}/$kroot/etc/munge/munge.key" "$dir/munge.key"; keyfile="$dir/munge.key"
fi
mkdir -p "$sroot$shared" /run/munge "$croot/run/munge"
rm -f "$dir/munged.pid"
# munged daemonizes inside a throw-away mount namespace holding the root and the shared folder
unshare --mount --fork -- sh -c '
  mount --bind "$2" "$1$2" || exit 125
  exec chroot "$1" /usr/sbin/munged --force --socket="$3/munge.socket.2" --key-file="$4" \
    --pid-file="$3/munged.pid" --seed-file="$3/munged.seed" --log-file="$3/munged.log"' \
  sh "$sroot" "$shared" "$dir" "$keyfile" || die "munged did not start: $(tail -n 3 "$dir/munged.log" 2>/dev/null)"
i=0; while [ ! -s "$dir/munged.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
pid="$(cat "$dir/munged.pid" 2>/dev/null)" || die "munged wrote no pid"
stop() {
  kill "$pid" 2>/dev/null || true
  i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  kill -9 "$pid" 2>/dev/null || true
}
trap stop EXIT
set +e
PMIX_LIVE_MUNGED="the Slurm $keyof root's key" unshare --mount -- sh -c '
  mount --bind "$1" /run/munge && mount --bind "$1" "$2/run/munge" || exit 125
  shift 2; exec "$@"' sh "$dir" "$croot" "$@"
rc=$?
set -e
exit $rc
