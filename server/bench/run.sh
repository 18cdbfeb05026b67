#!/usr/bin/env bash
# pmix-server against a plain OpenPMIx server of the same release, side by side in one run.
#
#   bash server/bench/run.sh [--sizes "1 8 32 64"] [--reps 3] [--iters 50]
#
# Both servers launch the same bench client (server/bench/bench-client.c) built against the
# host's OpenPMIx 4.2.2; the C server is server/bench/openpmix-launcher.c (PMIx_server_init,
# gds hash). Runs are interleaved (ours, C, ours, C, ...) and each number is the median over
# the repetitions of rank 0's medians: connect + init, a Get round trip, a fence without and
# with collected data; memory per client is the growth of the server's peak RSS from the
# smallest to the largest size, divided by the extra clients. The machine is shared: say so
# when quoting, and compare only numbers from one run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
sizes="1 8 32 64"; reps=3; iters=50
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    *) echo "usage: run.sh [--sizes \"1 8 32 64\"] [--reps N] [--iters N]" >&2; exit 2 ;;
  esac
done
pkg-config --exists pmix || { echo "bench: OpenPMIx (libpmix-dev) is MISSING on the host: bash tools/peers.sh make 4.2.2" >&2; exit 1; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/launcher" "$here/openpmix-launcher.c" $(pkg-config --cflags --libs pmix)
gcc -O2 -o "$work/bench" "$here/bench-client.c" $(pkg-config --cflags --libs pmix)
(cd "$repo" && cargo build --release -q -p pmix-server)
ours="$repo/target/release/pmix-server"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
for n in $sizes; do
  for r in $(seq "$reps"); do
    line=$(timeout 300 "$ours" launch -n "$n" --timeout 280 --report "$work/rep.json" -- "$work/bench" "$iters" | grep BENCH)
    hwm=$(grep -o '"vm_hwm_kb": [0-9]*' "$work/rep.json" | grep -o '[0-9]*$')
    echo "ours $line hwm=$hwm" >>"$work/results"
    out=$(timeout 300 "$work/launcher" "$n" "$work/bench" "$iters" 2>&1)
    line=$(echo "$out" | grep BENCH)
    hwm=$(echo "$out" | grep -o 'VmHWM [0-9]*' | grep -o '[0-9]*$')
    echo "c $line hwm=$hwm" >>"$work/results"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/results" "$sizes" <<'PY'
import sys, statistics
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    who = f[0]
    kv = dict(x.split("=") for x in f[2:])
    n = int(kv["n"])
    rows.setdefault((who, n), []).append({k: float(v) for k, v in kv.items() if k != "n"})
sizes = [int(s) for s in sys.argv[2].split()]
def med(who, n, k):
    return statistics.median(r[k] for r in rows[(who, n)])
print("| clients | metric | pmix-server | OpenPMIx 4.2.2 server | ours / C |")
print("|---|---|---|---|---|")
verdicts = []
for n in sizes:
    for k, unit in [("init", "us"), ("get", "us"), ("fence", "us"), ("fence_collect", "us")]:
        a, b = med("ours", n, k), med("c", n, k)
        print(f"| {n} | {k} ({unit}) | {a:.0f} | {b:.0f} | {a/b:.2f} |")
        verdicts.append((n, k, a <= b))
lo, hi = min(sizes), max(sizes)
if hi > lo:
    for who in ["ours", "c"]:
        per = (med(who, hi, "hwm") - med(who, lo, "hwm")) / (hi - lo)
        print(f"| memory per client | {who} | {per:.0f} kB |  |  |")
print()
print("how cost grows, fence / fence collecting data, in us per client:")
for who, name in [("ours", "pmix-server"), ("c", "C server")]:
    cells = ", ".join(f"{n}: {med(who, n, 'fence') / n:.0f} / {med(who, n, 'fence_collect') / n:.0f}" for n in sizes)
    print(f"  {name}: {cells}")
slower = [f"{k}@{n}" for n, k, ok in verdicts if not ok]
print()
print("target 'never slower than the C server':", "met" if not slower else "NOT MET (slower: " + ", ".join(slower) + ")")
if 64 in sizes:
    f = [ok for n, k, ok in verdicts if n == 64 and k.startswith("fence")]
    print("target 'faster on fence at 64 clients':", "met" if all(f) else "NOT MET")
PY
