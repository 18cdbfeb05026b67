#!/usr/bin/env bash
# Install what pmix-wire needs on a fresh Debian machine: the real OpenPMIx (libpmix-dev,
# the oracle's reference library), pkg-config, a C compiler, tcpdump, and rustfmt/clippy.
set -euo pipefail
need_apt=()
pkg-config --exists pmix 2>/dev/null || need_apt+=(libpmix-dev)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
command -v cc >/dev/null || need_apt+=(gcc)
# tcpdump: the live-capture tests of pmix-wire pcap (pcap/tests) record loopback traffic
command -v tcpdump >/dev/null || need_apt+=(tcpdump)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
pkg-config --exists pmix || { echo "setup: libpmix-dev did not install (pkg-config pmix fails)" >&2; exit 1; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true
echo "setup: OpenPMIx $(pkg-config --modversion pmix), $(cargo --version)"
