#!/bin/sh
# Build one statically linked pmix-conformance (no Rust toolchain or matching libc needed to
# run it) and print its path. The musl target may not be installable; the equivalent is the
# gnu target with the C runtime linked in (crt-static).
#
#   sh conformance/ci/static-runner.sh            # -> .../pmix-conformance
#   OUT=/tmp/dist sh conformance/ci/static-runner.sh
#
# A vendor's CI downloads that one file; it needs the vectors beside it (`--dir`, or the
# vector files as arguments).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
target=x86_64-unknown-linux-gnu
dir=${CARGO_TARGET_DIR:-$here/target/static-runner}
case "${OUT:-}" in ""|/*) ;; *) OUT="$PWD/$OUT" ;; esac
cd "$here"
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" CARGO_TARGET_DIR="$dir" \
  cargo build --release --locked --target "$target" -p pmix-conformance --bin pmix-conformance >&2
bin="$dir/$target/release/pmix-conformance"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT" && cp "$bin" "$OUT/" && bin="$OUT/pmix-conformance"
fi
echo "$bin"
