#!/usr/bin/env bash
# build.sh: build the live matrix's C programs against one release's real libpmix, cached
# next to the other builds of tools/peers.sh, and print the folder that holds their
# launchers.
#
#   bash tools/live/build.sh RELEASE        (4.2.2 5.0.7 6.0.0 6.1.0 7.0.0rc1)
#
# The folder $PMIX_WIRE_CACHE/live/RELEASE gets two launchers, each a small sh script that
# runs the program with the caller's environment (unlike `peers.sh run`, which clears it):
#   live-client    tools/live/live-client.c   (a client or a tool: OP lines)
#   plain-server   peer/servers/plain-server.c (a plain OpenPMIx server, job mode)
# For the releases that live in a debootstrap root (5.0.7, 7.0.0rc1) the programs are built
# and run inside the root, in a private mount namespace with /dev, /proc and /sys mounted
# and the host's shared folder (PMIX_LIVE_SHARED, default /tmp/pmix-live) bound at the same
# path, so servers and clients of different roots see one session directory.
# Rebuilt only when a source changes. Needs root for the roots.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
peers="$repo/tools/peers.sh"
cache="${PMIX_WIRE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmix-wire}"
shared="${PMIX_LIVE_SHARED:-/tmp/pmix-live}"
rel="${1:?usage: build.sh RELEASE}"

die() { echo "live build: error: $*" >&2; exit 1; }

kind="$(bash "$peers" kind "$rel")" || exit 1
sources=("$here/live-client.c" "$repo/peer/servers/plain-server.c")
stamp="$( (cat "${sources[@]}" "${BASH_SOURCE[0]}"; echo "$shared") | sha256sum | cut -c1-16)"
# one folder per version of the sources: worktrees (and engineers) building other sources
# at the same time never run each other's binaries
out="$cache/live/$rel/$stamp"
mkdir -p "$out" "$shared"
exec 9>"$out/.lock"
flock 9
if [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$out/live-client" ] && [ -x "$out/plain-server" ]; then
  echo "$out"; exit 0
fi

cflags="-Wall -Werror -O1"
case "$kind" in
  system | source)
    pc=""
    [ "$kind" = source ] && { p="$(bash "$peers" root "$rel")"; pc="$p/lib/pkgconfig"; cflags="$cflags -Wl,-rpath,$p/lib"; }
    for s in "${sources[@]}"; do
      b="$(basename "$s" .c)"
      # shellcheck disable=SC2046,SC2086
      gcc $cflags -o "$out/$b.bin" "$s" $(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs pmix) || die "$rel: building $b failed"
      printf '#!/bin/sh\n# %s for OpenPMIx %s (made by tools/live/build.sh)\nexec "%s" "$@"\n' "$b" "$rel" "$out/$b.bin" >"$out/$b"
      chmod +x "$out/$b"
    done
    ;;
  root)
    r="$(bash "$peers" root "$rel")"
    inroot="/opt/pmix-wire/live/$stamp"
    mkdir -p "$r$inroot"
    for s in "${sources[@]}"; do
      b="$(basename "$s" .c)"
      cp "$s" "$r$inroot/$b.c"
      bash "$peers" run "$rel" -- sh -c "gcc $cflags -o $inroot/$b $inroot/$b.c \$(pkg-config --cflags --libs pmix)" \
        || die "$rel: building $b inside $r failed"
      cat >"$out/$b" <<LAUNCHER
#!/bin/sh
# $b for OpenPMIx $rel, inside the root $r, with the caller's environment and the shared
# folder $shared (made by tools/live/build.sh).
mkdir -p "$shared" "$r$shared" || exit 125
exec unshare --mount --fork --kill-child -- sh -c '
  mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" &&
    mount --bind "$shared" "$r$shared" || exit 125
  exec chroot "$r" $inroot/$b "\$@"' sh "\$@"
LAUNCHER
      chmod +x "$out/$b"
    done
    ;;
esac
echo "$stamp" >"$out/stamp"
echo "$out"
