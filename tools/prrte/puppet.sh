#!/usr/bin/env bash
# puppet.sh: build the puppet tool (tools/prrte/puppet.c) inside the 7.0.0rc1 sid root
# against its libpmix, cached under ROOT/opt/pmix-wire/ and rebuilt when the source changes,
# and print its path as seen inside the root (e.g. /opt/pmix-wire/puppet-63d8b978ae5c5071).
#
#   bash tools/prrte/puppet.sh
#
# Used by tools/prrte-scenarios.sh, tools/server-scenarios.sh and the server's tests.
# Fails when the root is not made (bash tools/peers.sh make 7.0.0rc1).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
release=7.0.0rc1
case "${1:-}" in
  -h | --help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
root="$(bash "$repo/tools/peers.sh" root "$release" 2>/dev/null)" || {
  echo "puppet.sh: no $release root (bash tools/peers.sh make $release)" >&2
  exit 1
}
mkdir -p "$root/opt/pmix-wire"
sum="$(sha256sum "$repo/tools/prrte/puppet.c" | cut -c1-16)"
if [ ! -x "$root/opt/pmix-wire/puppet-$sum" ]; then
  cp "$repo/tools/prrte/puppet.c" "$root/opt/pmix-wire/puppet.c"
  bash "$repo/tools/peers.sh" run "$release" -- sh -c \
    "cd /opt/pmix-wire && gcc -O1 -Wall -Wjump-misses-init -Werror -o puppet-$sum.tmp puppet.c \$(pkg-config --cflags --libs pmix) && mv puppet-$sum.tmp puppet-$sum" >&2
fi
echo "/opt/pmix-wire/puppet-$sum"
