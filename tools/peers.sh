#!/usr/bin/env bash
# peers.sh: make the real OpenPMIx libraries (and PRRTE) available on demand, cached
# outside the repository, and build the oracle against each of them.
#
#   bash tools/peers.sh list                      what each release is and whether it is made
#   bash tools/peers.sh make RELEASE... | all     make releases available (idempotent)
#   bash tools/peers.sh oracle RELEASE            build (if stale) the oracle; print its path
#   bash tools/peers.sh run RELEASE -- CMD ARG... run a command where that library lives
#   bash tools/peers.sh root RELEASE              print the root (debootstrap releases) or prefix
#   bash tools/peers.sh kind RELEASE              print how it is made: system, root or source
#   bash tools/peers.sh install RELEASE PKG...    apt-get install extra packages where that
#                                                 release lives (the host for 4.2.2, its root
#                                                 for 5.0.7 / 7.0.0rc1), e.g. openmpi-bin
#
# Releases (the library that is the judge of each codec release profile):
#   4.2.2     Debian 12 libpmix-dev (the host's own package)           profile 4.2
#   5.0.7     Debian trixie libpmix-dev, in a debootstrap root          profile 5.0
#   6.0.0     built from the v6.0.0 tag source tarball                  profile 6.0
#   6.1.0     built from the v6.1.0 tag source tarball                  profile 6.1
#   7.0.0rc1  Debian sid libpmix-dev, in a debootstrap root with PRRTE  profile 7.0
#             5.0.0rc1 (libprrte-bin, libprrte-dev)
#
# Options and environment:
#   --cache DIR        PMIX_WIRE_CACHE   where roots, builds and oracles live
#                                        (default: $XDG_CACHE_HOME or ~/.cache, /pmix-wire)
#   --openpmix-src DIR PMIX_WIRE_OPENPMIX_SRC  folder with openpmix-v6.0.0.tar.xz,
#                                        openpmix-v6.1.0.tar.xz and the oac-*.tar.xz
#                                        submodule archives (needed for 6.0.0 / 6.1.0 only)
#   --mirror URL       PMIX_WIRE_DEBIAN_MIRROR  Debian mirror for debootstrap
#   -q                 quiet: only errors
#
# Roots need root privileges (debootstrap, mount namespaces). Nothing is written into the
# repository. Every step prints what it does; a failed step says which command to retry.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
cache="${PMIX_WIRE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pmix-wire}"
src_dir="${PMIX_WIRE_OPENPMIX_SRC:-}"
mirror="${PMIX_WIRE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
quiet=0

RELEASES=(4.2.2 5.0.7 6.0.0 6.1.0 7.0.0rc1)

say() { [ "$quiet" = 1 ] || echo "peers: $*" >&2; }
die() { echo "peers: error: $*" >&2; exit 1; }

usage() { sed -n '2,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

# kind of a release: system | root | source
kind_of() {
  case "$1" in
    4.2.2) echo system ;;
    5.0.7 | 7.0.0rc1) echo root ;;
    6.0.0 | 6.1.0) echo source ;;
    *) die "unknown release '$1' (valid: ${RELEASES[*]})" ;;
  esac
}

profile_of() {
  case "$1" in
    4.2.2) echo 4.2 ;;
    5.0.7) echo 5.0 ;;
    6.0.0) echo 6.0 ;;
    6.1.0) echo 6.1 ;;
    7.0.0rc1) echo 7.0 ;;
  esac
}

suite_of() { case "$1" in 5.0.7) echo trixie ;; 7.0.0rc1) echo sid ;; esac; }

# What each root installs. automake is named because debootstrap cannot pick between the
# alternatives that libltdl-dev depends on.
packages_of() {
  case "$1" in
    5.0.7) echo "libpmix-dev,automake,gcc,libc6-dev,pkg-config" ;;
    7.0.0rc1) echo "libpmix-dev,libprrte-bin,libprrte-dev,automake,gcc,libc6-dev,pkg-config,util-linux,procps" ;;
  esac
}

# The source tarball's tag commit and the oac submodule archive it needs.
tag_commit_of() { case "$1" in 6.0.0) echo e87b2ee832d249fadd61938a578aaee407b976b9 ;; 6.1.0) echo ad8d0b75757819175b8d864114bcc65048bce4c3 ;; esac; }
oac_of() { case "$1" in 6.0.0) echo oac-5e954b6d.tar.xz ;; 6.1.0) echo oac-3064f7bd.tar.xz ;; esac; }

root_dir() { echo "$cache/roots/$(suite_of "$1")"; }
prefix_dir() { echo "$cache/openpmix/$1"; }
oracle_dir() { echo "$cache/oracle/$1"; }
stamp_ok() { [ -f "$1/.pmix-wire-ready" ]; }

need_root_user() {
  [ "$(id -u)" -eq 0 ] || die "making and entering debootstrap roots needs root (run with sudo)"
}

apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "apt-get install ${missing[*]}"
  local SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Run a command inside a root, with /dev, /proc and /sys mounted in a private mount
# namespace (nothing is left mounted afterwards; the command dies with us).
in_root() {
  local r="$1"; shift
  unshare --mount --fork --kill-child -- sh -c '
    r="$1"; shift
    mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" || exit 125
    exec chroot "$r" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      HOME=/root TMPDIR=/tmp PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$@"
  ' sh "$r" "$@"
}

make_system() {
  apt_install libpmix-dev pkg-config gcc
  say "4.2.2: $(pkg-config --modversion pmix) from the host's libpmix-dev"
}

make_root() {
  local rel="$1" r suite pkgs
  r="$(root_dir "$rel")"; suite="$(suite_of "$rel")"; pkgs="$(packages_of "$rel")"
  need_root_user
  if stamp_ok "$r" && [ "$(cat "$r/.pmix-wire-ready")" = "$pkgs" ]; then
    say "$rel: $suite root ready at $r"
    return 0
  fi
  apt_install debootstrap
  if [ -d "$r" ] && [ -x "$r/usr/bin/apt-get" ] && [ -x "$r/bin/sh" ]; then
    # An existing root whose package list changed: install what is missing.
    say "$rel: installing ${pkgs//,/ } into the existing $suite root"
    in_root "$r" apt-get -o Acquire::Check-Valid-Until=false update -qq
    # shellcheck disable=SC2046
    in_root "$r" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${pkgs//,/ } >/dev/null
  else
    rm -rf "$r.tmp"
    mkdir -p "$(dirname "$r")"
    say "$rel: debootstrap $suite into $r (about 1.5 minutes; log: $r.log)"
    if ! debootstrap --variant=minbase --include="$pkgs" "$suite" "$r.tmp" "$mirror" >"$r.log" 2>&1; then
      tail -n 5 "$r.log" >&2
      die "debootstrap $suite failed (log: $r.log; retry: bash tools/peers.sh make $rel)"
    fi
    rm -rf "$r"
    mv "$r.tmp" "$r"
  fi
  in_root "$r" pkg-config --exists pmix || die "$rel: pmix is not visible to pkg-config inside $r"
  echo "$pkgs" >"$r/.pmix-wire-ready"
  say "$rel: $suite root ready at $r (OpenPMIx $(in_root "$r" pkg-config --modversion pmix))"
}

make_source() {
  local rel="$1" prefix build tarball oac sum
  prefix="$(prefix_dir "$rel")"
  [ -n "$src_dir" ] || {
    stamp_ok "$prefix" && { say "$rel: built, at $prefix"; return 0; }
    die "$rel is built from its tag source: pass --openpmix-src DIR (or set PMIX_WIRE_OPENPMIX_SRC) to the folder holding openpmix-v$rel.tar.xz and $(oac_of "$rel")"
  }
  tarball="$src_dir/openpmix-v$rel.tar.xz"; oac="$src_dir/$(oac_of "$rel")"
  [ -f "$tarball" ] || die "$tarball not found"
  [ -f "$oac" ] || die "$oac not found (the config/oac submodule of v$rel)"
  sum="$(cat "$tarball" "$oac" | sha256sum | cut -c1-16) tag $(tag_commit_of "$rel")"
  if stamp_ok "$prefix" && [ "$(cat "$prefix/.pmix-wire-ready")" = "$sum" ]; then
    say "$rel: built, at $prefix"
    return 0
  fi
  apt_install autoconf automake libtool flex bison perl libevent-dev libhwloc-dev zlib1g-dev pkg-config gcc make
  build="$cache/build/$rel"
  rm -rf "$build" "$prefix"; mkdir -p "$build"
  say "$rel: building from $tarball (4 to 6 minutes; logs in $build)"
  tar xf "$tarball" -C "$build"
  local s; s="$(find "$build" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
  tar xf "$oac" -C "$s/config"
  (
    cd "$s"
    ./autogen.pl >"$build/autogen.log" 2>&1
    ./configure --prefix="$prefix" --with-libevent --with-hwloc --disable-python-bindings >"$build/configure.log" 2>&1
    make -j"$(nproc)" >"$build/make.log" 2>&1
    make install >"$build/install.log" 2>&1
  ) || die "$rel: the build failed (logs in $build; retry: bash tools/peers.sh make $rel)"
  echo "$sum" >"$prefix/.pmix-wire-ready"
  say "$rel: built, at $prefix"
}

is_made() {
  local rel="$1"
  case "$(kind_of "$rel")" in
    system) pkg-config --exists pmix 2>/dev/null && [ "$(pkg-config --modversion pmix | cut -d. -f1-2)" = 4.2 ] ;;
    root) stamp_ok "$(root_dir "$rel")" ;;
    source) stamp_ok "$(prefix_dir "$rel")" ;;
  esac
}

make_one() {
  case "$(kind_of "$1")" in
    system) make_system ;;
    root) make_root "$1" ;;
    source) make_source "$1" ;;
  esac
}

# Build the oracle against a release. Its path is stable for one oracle source:
# $cache/oracle/REL/STAMP/pmix-oracle (STAMP: a digest of the source), a binary (system,
# source) or a small launcher that enters the root (root). Checkouts with different oracle
# sources (worktrees, branches) each keep their own build instead of rebuilding each other's.
build_oracle() {
  local rel="$1" od src stamp
  is_made "$rel" || die "$rel is not available yet: bash tools/peers.sh make $rel"
  src="$repo/tools/oracle/pmix_oracle.c"
  stamp="$( (cat "$src" "$repo/tools/oracle/build.sh"; echo launcher-norand-2) | sha256sum | cut -c1-16)"
  od="$(oracle_dir "$rel")/$stamp"; mkdir -p "$od"
  # Several tests may ask for the same oracle at once: one builds, the others wait.
  exec 9>"$od/.lock"
  flock 9
  if [ -x "$od/pmix-oracle" ] && [ "$(cat "$od/stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "$od/pmix-oracle"; return 0
  fi
  # Every launcher runs the oracle without address-space randomisation: where a library
  # reads uninitialised memory (quirk U14), the garbage is then the same on every run, so
  # the recorded vectors are reproducible.
  local norand
  norand="setarch $(uname -m) -R"
  case "$(kind_of "$rel")" in
    system)
      bash "$repo/tools/oracle/build.sh" "$od/pmix-oracle.bin" >&2
      printf '#!/bin/sh\n# pmix-oracle for OpenPMIx %s (made by tools/peers.sh).\nexec %s unshare --pid --fork --kill-child "%s" "$@"\n' \
        "$rel" "$norand" "$od/pmix-oracle.bin" >"$od/pmix-oracle"
      ;;
    source)
      local p; p="$(prefix_dir "$rel")"
      PKG_CONFIG_PATH="$p/lib/pkgconfig" CFLAGS="-Wl,-rpath,$p/lib" \
        bash "$repo/tools/oracle/build.sh" "$od/pmix-oracle.bin" >&2
      printf '#!/bin/sh\n# pmix-oracle for OpenPMIx %s (made by tools/peers.sh).\nexec %s unshare --pid --fork --kill-child "%s" "$@"\n' \
        "$rel" "$norand" "$od/pmix-oracle.bin" >"$od/pmix-oracle"
      ;;
    root)
      local r; r="$(root_dir "$rel")"
      mkdir -p "$r/opt/pmix-wire/$stamp/oracle"
      cp "$src" "$repo/tools/oracle/build.sh" "$r/opt/pmix-wire/$stamp/oracle/"
      in_root "$r" bash "/opt/pmix-wire/$stamp/oracle/build.sh" "/opt/pmix-wire/$stamp/pmix-oracle" >&2
      cat >"$od/pmix-oracle" <<LAUNCHER
#!/bin/sh
# pmix-oracle for OpenPMIx $rel, inside the root $r (made by tools/peers.sh).
exec $norand unshare --mount --pid --fork --kill-child -- sh -c '
  mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" && mount --rbind /sys "$r/sys" || exit 125
  exec chroot "$r" /opt/pmix-wire/$stamp/pmix-oracle "\$@"' sh "\$@"
LAUNCHER
      ;;
  esac
  chmod +x "$od/pmix-oracle"
  echo "$stamp" >"$od/stamp"
  echo "$od/pmix-oracle"
}

cmd_list() {
  printf '%-9s %-8s %-7s %s\n' release profile state "where / how to make it"
  for rel in "${RELEASES[@]}"; do
    local where state=made
    case "$(kind_of "$rel")" in
      system) where="host libpmix-dev" ;;
      root) where="$(root_dir "$rel")" ;;
      source) where="$(prefix_dir "$rel")" ;;
    esac
    if ! is_made "$rel"; then
      state="-"
      where="bash tools/peers.sh make $rel"
      [ "$(kind_of "$rel")" = source ] && where="$where --openpmix-src DIR"
    fi
    printf '%-9s %-8s %-7s %s\n' "$rel" "$(profile_of "$rel")" "$state" "$where"
  done
}

args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache="$2"; shift 2 ;;
    --cache=*) cache="${1#*=}"; shift ;;
    --openpmix-src) src_dir="$2"; shift 2 ;;
    --openpmix-src=*) src_dir="${1#*=}"; shift ;;
    --mirror) mirror="$2"; shift 2 ;;
    -q) quiet=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) args+=("$@"); break ;;
    *) args+=("$1"); shift ;;
  esac
done
set -- "${args[@]+"${args[@]}"}"
[ $# -ge 1 ] || { usage; exit 2; }
[ -z "$src_dir" ] || src_dir="$(cd "$src_dir" && pwd)"
export PMIX_WIRE_CACHE="$cache"

cmd="$1"; shift
case "$cmd" in
  list) cmd_list ;;
  make)
    [ $# -ge 1 ] || die "make what? (valid: all ${RELEASES[*]})"
    [ "$1" = all ] && set -- "${RELEASES[@]}"
    for rel in "$@"; do kind_of "$rel" >/dev/null; make_one "$rel"; done
    ;;
  oracle)
    [ $# -eq 1 ] || die "oracle RELEASE (valid: ${RELEASES[*]})"
    build_oracle "$1"
    ;;
  kind)
    [ $# -eq 1 ] || die "kind RELEASE"
    kind_of "$1"
    ;;
  root)
    [ $# -eq 1 ] || die "root RELEASE"
    case "$(kind_of "$1")" in root) root_dir "$1" ;; source) prefix_dir "$1" ;; system) echo / ;; esac
    ;;
  run)
    [ $# -ge 1 ] || die "run RELEASE -- CMD..."
    rel="$1"; shift; [ "${1:-}" = -- ] && shift
    [ $# -ge 1 ] || die "run $rel -- CMD: no command"
    is_made "$rel" || die "$rel is not available yet: bash tools/peers.sh make $rel"
    case "$(kind_of "$rel")" in
      root) need_root_user; in_root "$(root_dir "$rel")" "$@" ;;
      source) p="$(prefix_dir "$rel")"; PATH="$p/bin:$PATH" LD_LIBRARY_PATH="$p/lib" PKG_CONFIG_PATH="$p/lib/pkgconfig" exec "$@" ;;
      system) exec "$@" ;;
    esac
    ;;
  install)
    [ $# -ge 2 ] || die "install RELEASE PKG..."
    rel="$1"; shift
    is_made "$rel" || die "$rel is not available yet: bash tools/peers.sh make $rel"
    case "$(kind_of "$rel")" in
      system) apt_install "$@" ;;
      root)
        need_root_user
        r="$(root_dir "$rel")"; missing=()
        for p in "$@"; do in_root "$r" dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
        [ ${#missing[@]} -eq 0 ] && { say "$rel: ${*} already installed in $r"; exit 0; }
        say "$rel: apt-get install ${missing[*]} in $r"
        in_root "$r" apt-get -o Acquire::Check-Valid-Until=false update -qq
        in_root "$r" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
        ;;
      source) die "$rel is built from source: no package manager to install into" ;;
    esac
    ;;
  *) die "unknown command '$cmd' (valid: list make oracle run root kind install)" ;;
esac
