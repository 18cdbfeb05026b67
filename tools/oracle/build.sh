#!/usr/bin/env bash
# Build pmix-oracle (tools/oracle/pmix_oracle.c) against the installed OpenPMIx.
#   bash tools/oracle/build.sh [OUT]        (default OUT: target/pmix-oracle)
# Needs pkg-config's `pmix` (Debian: libpmix-dev) and a C compiler. Uses the
# library's installed internal headers (<pmix includedir>/pmix/src/...) and, when
# pkg-config knows it, hwloc (for PROC_CPUSET/TOPO values). CC and CFLAGS are honoured.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/target/pmix-oracle}"
cc="${CC:-cc}"

if ! command -v pkg-config >/dev/null 2>&1; then
  echo "build.sh: pkg-config not found (apt-get install -y pkg-config libpmix-dev)" >&2
  exit 1
fi
if ! pkg-config --exists pmix; then
  echo "build.sh: pkg-config cannot find pmix (apt-get install -y libpmix-dev)" >&2
  exit 1
fi

pmix_cflags="$(pkg-config --cflags pmix)"
pmix_libs="$(pkg-config --libs pmix)"

# The internal headers (src/mca/bfrops/bfrops.h, src/class/...) live under
# <includedir>/pmix; pkg-config usually lists that directory already, add it anyway.
incdir="$(pkg-config --variable=includedir pmix)"
internal=""
for d in "$incdir/pmix" "$incdir"; do
  if [ -f "$d/src/mca/bfrops/bfrops.h" ]; then
    internal="-I$d"
    break
  fi
done
if [ -z "$internal" ]; then
  echo "build.sh: the OpenPMIx internal headers (src/mca/bfrops/bfrops.h) are not under $incdir" >&2
  exit 1
fi

hwloc_flags=""
if pkg-config --exists hwloc; then
  hwloc_flags="-DORACLE_HWLOC $(pkg-config --cflags --libs hwloc)"
fi

mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2086
"$cc" -std=gnu11 -O2 -g -Wall -Wextra ${CFLAGS:-} -o "$out" "$here/pmix_oracle.c" \
  $pmix_cflags $internal $pmix_libs $hwloc_flags
echo "build.sh: built $out (OpenPMIx $(pkg-config --modversion pmix))"
