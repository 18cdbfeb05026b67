#!/usr/bin/env bash
# limit-memory.sh: run a command under an address-space limit (ulimit -v), so that a test
# binary that grows without bound fails on its own allocation instead of taking the machine
# with it. tools/mutants.sh makes it cargo's runner for test binaries: a mutated codec can
# read a lying count as an allocation size (one such mutant grew the codec's examples test
# to 22 GB resident before the kernel's out-of-memory killer stopped it).
#
#   bash tools/limit-memory.sh CMD [ARG...]
#
# The limit is PMIX_WIRE_TEST_MEMORY_KB kibibytes of address space (default 8000000, about
# 8 GB); a test that needs more fails with an allocation error, counted as caught.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
ulimit -v "${PMIX_WIRE_TEST_MEMORY_KB:-8000000}"
exec "$@"
