#!/usr/bin/env python3
"""mpi-report.py: turn one run folder of tools/live/mpi.sh into observations
(vectors/live/mpi.json) and a summary (vectors/live/MPI.md). Called by mpi.sh; not by hand.

  mpi-report.py --run DIR --np N --timeout S [--server PATH] --json FILE --md FILE
  mpi-report.py --run DIR --np N --timeout S --ci     (exit 1 unless every core run works)

The run folder holds OMPI/LAUNCHER/{not-run | MODE/...} where MODE is bare, core or spawn
and a MODE folder has meta (key=value), extra-env, launcher.out, and per rank process
env.R.PID, out.R.PID and status.R.PID (written by the rank wrapper mpi-rank).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

OMPIS = [
    ("4.1.4", "4.2.2", "host (Debian bookworm)"),
    ("5.0.7", "5.0.7", "trixie root"),
    ("6.0.0rc2", "7.0.0rc1", "sid root"),
]
LAUNCHERS = [
    ("pmix-server", "pmix-server launch -n 2 (this project)"),
    ("plain", "the plain OpenPMIx server of the release (peer/servers/plain-server.c), ranks started with the environment it writes"),
    ("prterun", "PRRTE prterun -n 2 of the root (3.0.8 in trixie, 5.0.0rc1 in sid)"),
    ("mpirun", "Open MPI's own mpirun (reference: ORTE for 4.1.4, PRRTE-based for 5.0.7 and 6.0.0rc2)"),
    ("slurm", "srun --mpi=pmix (tools/live/slurm.sh)"),
]
CORE_CHECKS = ["init", "size", "allreduce", "barrier", "finalize"]
LINE = re.compile(r"^MPI (\S+) (ok|fail) rank=(-?\d+) ?(.*)$")


def read_meta(d):
    meta = {}
    p = os.path.join(d, "meta")
    if os.path.exists(p):
        for line in open(p, errors="replace"):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    return meta


def mpi_lines(path):
    out = []
    if os.path.exists(path):
        for line in open(path, errors="replace"):
            m = LINE.match(line.strip())
            if m:
                out.append({"check": m.group(1), "result": m.group(2), "rank": int(m.group(3)),
                            "detail": m.group(4)})
    return out


def tail(path, n=6):
    if not os.path.exists(path):
        return []
    lines = [l.rstrip("\n") for l in open(path, errors="replace") if l.strip()]
    lines = [l for l in lines if not LINE.match(l.strip())]
    return [l[:300] for l in lines[-n:]]


def read_run(d, np_, mode):
    meta = read_meta(d)
    extra = [l.strip() for l in open(os.path.join(d, "extra-env"))] if os.path.exists(os.path.join(d, "extra-env")) else []
    extra = [e for e in extra if e]
    procs = []
    for st in sorted(glob.glob(os.path.join(d, "status.*"))):
        _, r, pid = os.path.basename(st).split(".", 2)
        s = open(st).read().strip()
        code = int(s) if s.lstrip("-").isdigit() else None
        # sh reports a death by signal N as 128+N; above 128+64 it is an exit status
        sig = code - 128 if code is not None and 128 < code <= 128 + 64 else None
        procs.append({"pmix_rank": r, "pid": int(pid), "exit": None if sig else code, "signal": sig,
                      "checks": mpi_lines(os.path.join(d, "out.%s.%s" % (r, pid))),
                      "output_tail": tail(os.path.join(d, "out.%s.%s" % (r, pid)))})
    started = sorted(os.path.basename(p).split(".", 2)[1] + "." + os.path.basename(p).split(".", 2)[2]
                     for p in glob.glob(os.path.join(d, "env.*.*")))
    ended = {"%s.%d" % (p["pmix_rank"], p["pid"]) for p in procs}
    for s in started:
        if s not in ended:
            r, pid = s.split(".", 1)
            procs.append({"pmix_rank": r, "pid": int(pid), "exit": None, "signal": None, "no_status": True,
                          "checks": mpi_lines(os.path.join(d, "out.%s" % s)),
                          "output_tail": tail(os.path.join(d, "out.%s" % s))})
    rank_env = {}
    for p in sorted(glob.glob(os.path.join(d, "env.*.*"))):
        r = os.path.basename(p).split(".", 2)[1]
        if r not in rank_env:
            rank_env[r] = [l.rstrip("\n") for l in open(p, errors="replace") if l.strip()]
    launcher_lines = mpi_lines(os.path.join(d, "launcher.out"))
    child = [l for l in launcher_lines if l["check"] == "child" or "child=1" in l["detail"]]
    for p in procs:
        child += [l for l in p["checks"] if l["check"] == "child"]
    run = {
        "mode": mode,
        "extra_env": extra,
        "command": meta.get("command", ""),
        "launcher_exit": int(meta.get("launcher_exit", "-1")),
        "timed_out": meta.get("timed_out") == "1",
        "elapsed_ms": int(meta.get("elapsed_ms", "0") or 0),
        "processes": procs,
        "child_checks": child,
        "launcher_tail": tail(os.path.join(d, "launcher.out")),
    }
    if "server_exit" in meta:
        run["plain_server_exit"] = int(meta["server_exit"])
        run["plain_server_tail"] = tail(os.path.join(d, "server.out"), 4)
    if meta.get("reason"):
        run["setup_failure"] = meta["reason"]
    run["rank_env"] = rank_env
    run["verdict"], run["reason"] = judge(run, np_, mode)
    return run


def judge(run, np_, mode):
    """works only when every launched rank ended with 0, reported every check ok, and
    the world had the launched size; the first failure found names the verdict:
    fails (a check failed, a rank exited non-zero, the setup failed), hang (timeout),
    crash (a rank died by a signal), killed (a rank's wrapper was killed with it, so no
    status: the launcher or the timeout ended it), singleton (size 1 of a 2-rank launch)."""
    procs = run["processes"]
    if run.get("setup_failure"):
        return "fails", run["setup_failure"]
    if run["timed_out"]:
        return "hang", "still running after the timeout; killed"
    sig = [p for p in procs if p["signal"]]
    if sig:
        return "crash", "; ".join("rank %s (pid %d) died by signal %d after %s" % (
            p["pmix_rank"], p["pid"], p["signal"], last_check(p)) for p in sig)
    missing = [p for p in procs if p.get("no_status")]
    if missing:
        return "killed", "; ".join("rank %s (pid %d) was killed with its wrapper (no status recorded) after %s"
                                  % (p["pmix_rank"], p["pid"], last_check(p)) for p in missing)
    if len(procs) != np_:
        return "fails", "%d rank processes started, %d launched" % (len(procs), np_)
    singles = [p for p in procs if any(c["check"] == "size" and "singleton" in c["detail"] for c in p["checks"])]
    if singles:
        return "singleton", "%d of %d ranks came up as singletons (size 1)" % (len(singles), np_)
    bad = []
    for p in procs:
        ok = {c["check"] for c in p["checks"] if c["result"] == "ok"}
        failed = ["%s (%s)" % (c["check"], c["detail"]) for c in p["checks"] if c["result"] == "fail"]
        want = CORE_CHECKS + (["spawn"] if mode == "spawn" else [])
        absent = [c for c in want if c not in ok and not any(f.startswith(c + " ") for f in failed)]
        if failed or absent or p["exit"] != 0:
            bad.append("rank %s exit %s%s%s" % (p["pmix_rank"], p["exit"],
                                                 ": failed " + ", ".join(failed) if failed else "",
                                                 "; never reported " + ", ".join(absent) if absent else ""))
    if bad:
        return "fails", "; ".join(bad)
    ranks = sorted({c["rank"] for p in procs for c in p["checks"] if c["check"] == "size"})
    if ranks != list(range(np_)):
        return "fails", "ranks reported %s, not 0..%d" % (ranks, np_ - 1)
    if mode == "spawn" and not any(c["result"] == "ok" for c in run["child_checks"] if c["check"] == "child"):
        return "fails", "the spawned child reported no ok child check"
    if run["launcher_exit"] != 0:
        return "fails", "every rank worked but the launcher exited %d" % run["launcher_exit"]
    return "works", ""


def last_check(p):
    return ("its last check '%s'" % p["checks"][-1]["check"]) if p["checks"] else "no check"


def short(verdict, needs):
    if verdict == "works" and needs:
        return "works+env"
    return verdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--timeout", type=int, required=True)
    ap.add_argument("--base-env", default="")
    ap.add_argument("--json")
    ap.add_argument("--md")
    ap.add_argument("--ci", action="store_true")
    a = ap.parse_args()

    cells = []
    for o, pmix, where in OMPIS:
        od = os.path.join(a.run, o)
        if not os.path.isdir(od):
            continue
        linkage = [l.rstrip("\n") for l in open(os.path.join(od, "linkage"))] if os.path.exists(os.path.join(od, "linkage")) else []
        for l, _ in LAUNCHERS:
            d = os.path.join(od, l)
            if not os.path.isdir(d):
                continue
            cell = {"ompi": o, "libpmix": pmix, "where": where, "launcher": l}
            if os.path.exists(os.path.join(d, "not-run")):
                cell.update(verdict="not run", spawn="not run", reason=open(os.path.join(d, "not-run")).read().strip(),
                            needs_env=[], runs=[])
                cells.append(cell)
                continue
            runs = [read_run(os.path.join(d, m), a.np, "spawn" if m == "spawn" else "core")
                    for m in ("bare", "core", "spawn") if os.path.isdir(os.path.join(d, m))]
            for r, m in zip(runs, [m for m in ("bare", "core", "spawn") if os.path.isdir(os.path.join(d, m))]):
                r["run"] = m
            core = next(r for r in runs if r["run"] == "core")
            spawn = next((r for r in runs if r["run"] == "spawn"), None)
            bare = next((r for r in runs if r["run"] == "bare"), None)
            base = a.base_env.split()
            cell["needs_env"] = [e for e in core["extra_env"] if e not in base]
            cell["verdict"] = core["verdict"]
            cell["reason"] = core["reason"]
            cell["spawn"] = spawn["verdict"] if spawn else "not run"
            cell["spawn_reason"] = (spawn["reason"] if spawn else "the CI subset runs no spawn")
            if bare:
                cell["without_env"] = bare["verdict"]
                cell["without_env_reason"] = bare["reason"]
            cell["linkage"] = linkage
            note = open(os.path.join(d, "note")).read().strip() if os.path.exists(os.path.join(d, "note")) else ""
            if note:
                cell["note"] = note
            cell["runs"] = runs
            cells.append(cell)

    if a.ci:
        bad = [c for c in cells if c["verdict"] != "works"]
        for c in cells:
            print("mpi --ci: Open MPI %s x %s: %s %s" % (c["ompi"], c["launcher"], c["verdict"], c.get("reason", "")))
        return 1 if bad or not cells else 0

    server_rev = ""
    try:
        server_rev = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True,
                                    cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    except OSError:
        pass
    doc = {
        "format": "pmix-wire live mpi 1",
        "generated_by": "tools/live/mpi.sh (tools/live/mpi-report.py)",
        "np": a.np,
        "timeout_s": a.timeout,
        "pmix_server_revision": server_rev,
        "program": "tools/live/mpi-check.c",
        "base_env": a.base_env.split(),
        "ompi": [{"ompi": o, "libpmix": p, "where": w} for o, p, w in OMPIS],
        "launchers": [{"launcher": l, "what": w} for l, w in LAUNCHERS],
        "mpich": "Debian's MPICH (bookworm, trixie, sid) does not link libpmix: no row",
        "cells": cells,
    }
    with open(a.json, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    with open(a.md, "w") as f:
        f.write(markdown(doc))
    print("mpi: wrote %s and %s" % (a.json, a.md), file=sys.stderr)
    return 0


def markdown(doc):
    cells = {(c["ompi"], c["launcher"]): c for c in doc["cells"]}
    ls = [l["launcher"] for l in doc["launchers"]]
    out = ["# Real MPI under each launcher",
           "",
           "Generated by `bash tools/live/mpi.sh` from `vectors/live/mpi.json`; do not edit by hand.",
           "Each cell runs `tools/live/mpi-check.c` with %d ranks (init, size = launched count, allreduce, "
           "barrier, finalize); spawn is `MPI_Comm_spawn` of one child, run apart. "
           "`works+env`: works once the variable in the details is set (without it: see details). "
           "A signal, a hang (timeout %d s), a singleton or any failed check is never `works`."
           % (doc["np"], doc["timeout_s"]),
           "",
           "Debian's MPICH does not link libpmix, so it has no row. "
           "Every run has `%s` (loopback-only network namespace)." % " ".join(doc["base_env"]),
           ""]
    for title, key in (("MPI program (init, size, allreduce, barrier, finalize)", "verdict"),
                       ("MPI_Comm_spawn of one child", "spawn")):
        out += ["## " + title, "", "| Open MPI (libpmix) | " + " | ".join(ls) + " |",
                "|---|" + "---|" * len(ls)]
        for o in doc["ompi"]:
            row = []
            for l in ls:
                c = cells.get((o["ompi"], l))
                if c is None:
                    row.append("-")
                elif key == "verdict":
                    row.append(short(c["verdict"], c.get("needs_env")))
                else:
                    row.append(c["spawn"])
            out.append("| %s (%s) | %s |" % (o["ompi"], o["libpmix"], " | ".join(row)))
        out.append("")
    out += ["## Details", ""]
    for c in doc["cells"]:
        out.append("### Open MPI %s x %s" % (c["ompi"], c["launcher"]))
        out.append("")
        if c["verdict"] == "not run":
            out += ["not run: %s" % c["reason"], ""]
            continue
        out.append("- program: **%s**%s" % (c["verdict"], (" - " + c["reason"]) if c["reason"] else ""))
        if c.get("needs_env"):
            out.append("- needs: `%s`; without it: **%s**%s" % (
                " ".join(c["needs_env"]), c.get("without_env", "?"),
                (" - " + c["without_env_reason"]) if c.get("without_env_reason") else ""))
        else:
            out.append("- needs: nothing beyond what the launcher sets")
        if c.get("note"):
            out.append("- note: " + c["note"])
        out.append("- spawn: **%s**%s" % (c["spawn"], (" - " + c["spawn_reason"]) if c.get("spawn_reason") else ""))
        for r in c["runs"]:
            ends = ", ".join("rank %s: %s" % (p["pmix_rank"], ("signal %d" % p["signal"]) if p["signal"] else
                                              ("no status" if p.get("no_status") else "exit %s" % p["exit"]))
                             for p in sorted(r["processes"], key=lambda p: p["pmix_rank"]))
            out.append("- run `%s`: %s in %.1f s; launcher exit %d%s; %s" % (
                r["run"], r["verdict"], r["elapsed_ms"] / 1000.0, r["launcher_exit"],
                " (timed out)" if r["timed_out"] else "", ends or "no rank process started"))
            if r["verdict"] != "works":
                for t in (r["launcher_tail"][-2:] or []):
                    out.append("    - launcher: `%s`" % t.replace("`", "'")[:200])
                for p in r["processes"]:
                    for t in p["output_tail"][-2:]:
                        out.append("    - rank %s: `%s`" % (p["pmix_rank"], t.replace("`", "'")[:200]))
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
