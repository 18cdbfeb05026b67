#!/usr/bin/env python3
"""assemble.py: turn one live-matrix run into the observations file (format 2,
vectors/live/README.md).

    python3 tools/live/assemble.py CELLS.tsv PROVENANCE.json OUT.json [--check]

--check (CI): fail unless the harness itself worked: every same-release base cell (a client
of release R against plain-R) reached the wire and completed init, every put/fence/get and
finalize, and no cell had a harness error (a wire tap that did not start, an unreadable
line in a tap's log). Cross-release failures are findings, never a reason to fail.

CELLS.tsv has one line per cell: client_release, client_kind, server, server_release,
variant, forced component ('-' when none), the cell's folder, the variant's setting
('-' when none: the buffer case, the gds module, the psec module) and the plant ('-' when
none: `crash`, `init-fails`; the last two fields may be left out). A folder holds out.R
(rank R's `OP name status status_name observed...` lines), tool.out for a tool, rankR.rc
or tool.rc (the exit status `timeout` gave: 124 timed out, 128+N signal N), tap.jsonl
(the wire tap's connect messages), and not_run when the harness could not run the cell
(its reason). The format is the one `tools/live/src/` reads (no field beyond it):
operations are listed in the order they ran, `processes` says how each process ended,
`unreported` lists the operations given but not reported, `not_run` why a cell did not
run; the note repeats it in words, with what a variant told the client.
"""
import json
import os
import sys

CLASSES = ["int", "uint", "flex-size", "float", "string", "bytes", "proc",
           "info-array", "data-array", "value"]
JOB_KEYS = ["job-size", "local-size", "local-peers", "univ-size", "appnum", "nodeid", "local-rank"]
# the operations the field breaks on (issue 38 item 3), in the order the client runs them
FIELD_OPS = (["job-key:" + k for k in JOB_KEYS]
             + ["get-rank-undef", "get-rank-wildcard", "fence-nodata-get", "qualified-values",
                "get-refresh-cache", "get-wait-commit", "get-wait-commit-timeout", "event-notify"])
CLIENT_OPS = (["init", "get-job-info"] + ["put-commit-fence-get:" + c for c in CLASSES]
              + FIELD_OPS + ["allocation-inherit", "query", "abort-seen", "finalize"])
# rank 1 (the last rank) calls PMIx_Abort in abort-seen and ends there, without finalize
ABORTING_RANK_OPS = CLIENT_OPS[:CLIENT_OPS.index("abort-seen") + 1]
TOOL_OPS = ["init", "query", "allocation-inherit", "finalize"]


def read_ops(path):
    ops = {}
    if not os.path.exists(path):
        return ops
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 4)
            if len(parts) < 4 or parts[0] != "OP":
                continue
            try:
                status = int(parts[2])
            except ValueError:
                continue
            ops[parts[1]] = {"op": parts[1], "status": status, "status_name": parts[3],
                             "observed": parts[4] if len(parts) > 4 else ""}
    return ops


SIGNALS = {1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
           7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 14: "SIGALRM",
           15: "SIGTERM"}


def ending(folder, name):
    """how a process ended, from the runner's NAME.rc (`timeout`'s exit status: 124 timed
    out, 128+N signal N), as the observations format writes it"""
    try:
        rc = int(open(os.path.join(folder, name + ".rc")).read().strip())
    except (OSError, ValueError):
        return {"how": "did-not-run"}
    if rc == 124:
        return {"how": "timed-out"}
    if 129 <= rc <= 191:
        return {"how": "signal", "signal": SIGNALS.get(rc - 128, "signal %d" % (rc - 128))}
    return {"how": "exited", "code": rc}


def describe(e):
    """an ending in words, as the Rust side says it"""
    return {"did-not-run": "did not run", "timed-out": "timed out"}.get(
        e["how"], e.get("signal") or "exited with %s" % e.get("code"))


def ended(folder, name):
    """how a process ended, in words (for the note)"""
    return describe(ending(folder, name))


def not_run_reason(folder):
    """why the harness could not run the cell (the runner's not_run file), or None"""
    try:
        with open(os.path.join(folder, "not_run"), errors="replace") as f:
            return " ".join(f.read().split()) or "the harness could not run it"
    except OSError:
        return None


def tap_records(folder):
    """the wire tap's records (one JSON object a line) and how many lines were unreadable"""
    seen, bad = [], 0
    try:
        with open(os.path.join(folder, "tap.jsonl"), errors="replace") as f:
            for line in f:
                if not line.strip():
                    continue
                try:
                    seen.append(json.loads(line))
                except ValueError:
                    bad += 1
    except OSError:
        pass
    return seen, bad


def wire(seen, kind, rank):
    """the connect message of rank 0 (a client) or of the tool, as the tap saw it"""
    for m in seen:
        if "error" in m:
            continue
        if kind == "tool" and m.get("flag") != "SimpleClient":
            return m
        if kind == "client" and m.get("flag") == "SimpleClient" and m.get("rank") == rank:
            return m
    return None


def harness_errors(folder):
    """what went wrong in the harness itself for this cell (the runner's harness.err)"""
    try:
        with open(os.path.join(folder, "harness.err"), errors="replace") as f:
            return [line.strip() for line in f if line.strip()]
    except OSError:
        return []


BUFFER_NOTES = {
    "client-fully": "the client was told PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC",
    # older runs wrote no setting for the buffer variant: it was this case
    "-": "the client was told PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_FULLY_DESC",
    "server-fully": "the server was started fully-described (PMIX_BFROP_BUFFER_TYPE="
                    "PMIX_BFROP_BUFFER_FULLY_DESC) and the client given its advertisement",
    "server-fully-client-default": "the server was started fully-described and advertised it; "
                                   "the client's PMIX_BFROP_BUFFER_TYPE was removed (its own default)",
}


def variant_note(variant, setting):
    """what the variant told the client (or the server), for the cell's note"""
    if variant == "buffer":
        return BUFFER_NOTES.get(setting, "buffer case " + setting)
    if variant == "gds":
        return "the client was told PMIX_GDS_MODULE=%s" % ("hash" if setting == "-" else setting)
    if variant == "psec":
        key = os.environ.get("PMIX_LIVE_MUNGED")  # tools/live/munged.sh: which key
        munged = (" (a munged runs with %s, its socket seen by the client and the server)" % key
                  if key else " (no munged runs on this machine)")
        return "the client was told PMIX_SECURITY_MODE=%s%s" % (
            setting, munged if setting == "munge" else "")
    return None


def setting_of(variant, forced, setting):
    """the variant's setting as the observations record it"""
    if variant == "force":
        return forced
    if variant == "buffer" and setting == "-":
        return "client-fully"  # older runs wrote no setting for this case
    if variant == "gds" and setting == "-":
        return "hash"
    key = os.environ.get("PMIX_LIVE_MUNGED")
    if variant == "psec" and setting == "munge" and key:
        return "munge (munged: %s)" % key
    return setting


def cell(fields):
    client_release, kind, server, server_release, variant, forced, folder = fields[:7]
    setting = fields[7] if len(fields) > 7 else "-"
    plant = fields[8] if len(fields) > 8 and fields[8] != "-" else None
    expected = CLIENT_OPS if kind == "client" else TOOL_OPS
    out = os.path.join(folder, "out.0" if kind == "client" else "tool.out")
    got = read_ops(out)
    notes = []
    if variant == "peer":
        notes.append("pmix-peer (this repository's native tool) spoke %s%s" % (
            setting, ", an older component than the server's newest" if forced != "-" else ""))
    elif forced != "-":
        notes.append("only PMIX_SERVER_URI of %s was left: the client was forced to %s" % (forced, forced))
    told = variant_note(variant, setting)
    if told:
        notes.append(told)
    if plant:
        notes.append("planted on purpose: %s" % plant)
    why_not = not_run_reason(folder)
    ops = [got[name] for name in expected if name in got] if why_not is None else []
    missing = [name for name in expected if name not in got]
    main = "rank0" if kind == "client" else "tool"
    processes = [{"who": w, "ended": ending(folder, w)}
                 for w in (["rank0", "rank1"] if kind == "client" else ["tool"])]
    # the server's own ending, when the runner recorded it and did not end it itself
    if (why_not is None and os.path.exists(os.path.join(folder, "server.rc"))
            and not os.path.exists(os.path.join(folder, "server.stopped"))):
        processes.append({"who": "server", "ended": ending(folder, "server")})
        if processes[-1]["ended"]["how"] == "signal":
            notes.append("the server ended by %s" % processes[-1]["ended"]["signal"])
    if why_not is not None:
        notes.append("not run: " + why_not)
    elif missing:
        notes.append("ended before %s (%s)" % (missing[0], ended(folder, main)))
    if why_not is None:
        for p in processes:
            if p["who"] != main and p["ended"]["how"] == "signal":
                notes.append("%s ended by %s" % (p["who"], p["ended"]["signal"]))
    if kind == "client" and why_not is None:
        # the other rank must agree; say where it did not
        other = read_ops(os.path.join(folder, "out.1"))
        for o in ops:
            p = other.get(o["op"])
            if o["op"] == "abort-seen" or (p is None and o["op"] not in ABORTING_RANK_OPS):
                continue  # rank 1 aborts there (another role), or is not given the op
            if p is None or p["status"] != o["status"]:
                notes.append("rank 1 %s: %s" % (o["op"], p["status_name"] if p else "not reached"))
    seen, unreadable = tap_records(folder)
    m = wire(seen, kind, 0)
    if m is None and why_not is None:
        notes.append("no connect message reached the server (nothing on the wire tap)")
    harness = harness_errors(folder)
    if unreadable:
        harness.append("the wire tap's log has %d unreadable line(s)" % unreadable)
    notes.extend("harness: " + h for h in harness)
    c = {
        "client_release": client_release,
        "client_kind": kind,
        "server": server,
        "server_release": server_release,
        "component": (m or {}).get("bfrops", ""),
        "component_forced": forced != "-",
        "buffer": (m or {}).get("buffer", ""),
        "gds": (m or {}).get("gds", ""),
        "psec": (m or {}).get("psec", ""),
        "ops": ops,
    }
    if notes:
        c["note"] = "; ".join(notes)
    c["variant"] = variant
    c["setting"] = setting_of(variant, forced, setting)
    if why_not is None:
        c["processes"] = processes
        if missing:
            c["unreported"] = missing
    else:
        c["not_run"] = why_not
    if plant:
        c["plant"] = plant
    return c, variant, harness


def harness_failures(cells):
    bad = []
    for c, variant, harness in cells:
        for h in harness:
            bad.append("%s %s -> %s: %s" % (c["client_kind"], c["client_release"], c["server"], h))
        if variant != "base" or c["server"] != "plain-" + c["client_release"] or c.get("plant"):
            continue
        done = {o["op"]: o["status"] for o in c["ops"]}
        need = ["init", "finalize"] + ["put-commit-fence-get:" + k for k in CLASSES]
        failed = [n for n in need if done.get(n) != 0]
        if not c["component"] or failed:
            bad.append("%s -> %s: component %r, failed or not reached: %s" % (
                c["client_release"], c["server"], c["component"], ", ".join(failed) or "-"))
    return bad


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    if len(args) != 3:
        sys.exit("usage: assemble.py CELLS.tsv PROVENANCE.json OUT.json [--check]")
    cells = []
    with open(args[0]) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) in (7, 8, 9):
                cells.append(cell(fields))
    prov = json.load(open(args[1]))
    doc = {"format": 2, "provenance": prov, "cells": [c for c, _, _ in cells]}
    with open(args[2], "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    if "--check" in sys.argv:
        bad = harness_failures(cells)
        if not any(v == "base" for _, v, _ in cells):
            bad.append("no base cell ran")
        for b in bad:
            print("live-matrix: harness check FAILED: " + b, file=sys.stderr)
        if bad:
            sys.exit(1)


if __name__ == "__main__":
    main()
