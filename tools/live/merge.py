#!/usr/bin/env python3
"""merge.py: put the cells of a partial live-matrix run into the observations file.

    python3 tools/live/merge.py BASE.json RUN.json OUT.json [--why TEXT]

BASE is the observations file (vectors/live/observations.json), RUN a file that
`bash tools/live-matrix.sh ... --json RUN.json` wrote for a subset (--servers, --clients,
--variants). Every cell of RUN replaces the one cell of BASE that is the same experiment,
or is added when BASE has none; every other cell of BASE is kept as it is, in its place.
OUT (may be BASE itself) is written only when the merge is clean.

A cell's experiment is: client_release, client_kind, server, component_forced, and what
the variant told the client or the server, which is the cell's note without the clauses
that report the outcome (`ended before ...`, `rank 1 ...`, `no connect message ...`,
`harness: ...`; tools/live/assemble.py writes both), and the plant of a planted cell (a
planted cell never replaces a real one). Two cells of one file with the same
experiment are an error, as is a RUN with a format or releases BASE does not have.

The provenance keeps BASE's and adds RUN's: its command and date are appended to BASE's
command ("; then ... replaced N cells and added M"), with --why saying why the cells were
re-recorded, and RUN's releases are added where BASE has none (a release BASE names with
another build is an error: the file would mix two builds under one name).
"""
import json
import sys

OUTCOME_PREFIXES = ("ended before ", "rank 1 ", "no connect message ", "harness: ")


def experiment(cell):
    note = cell.get("note", "")
    told = [p for p in note.split("; ") if p and not p.startswith(OUTCOME_PREFIXES)]
    return (cell["client_release"], cell["client_kind"], cell["server"],
            cell["component_forced"], "; ".join(told), cell.get("plant"))


def index(cells, name):
    seen = {}
    for i, c in enumerate(cells):
        key = experiment(c)
        if key in seen:
            sys.exit("merge.py: %s has two cells of one experiment: %r" % (name, key))
        seen[key] = i
    return seen


def main(argv):
    why = None
    if "--why" in argv:
        at = argv.index("--why")
        if at + 1 >= len(argv):
            sys.exit("merge.py: --why needs a text")
        why = argv[at + 1]
        del argv[at:at + 2]
    if len(argv) != 4:
        sys.exit(__doc__)
    base_path, run_path, out_path = argv[1:]
    with open(base_path) as f:
        base = json.load(f)
    with open(run_path) as f:
        run = json.load(f)
    if base.get("format") != run.get("format"):
        sys.exit("merge.py: format %r against %r" % (run.get("format"), base.get("format")))
    at = index(base["cells"], base_path)
    index(run["cells"], run_path)
    bprov, rprov = base["provenance"], run["provenance"]
    for rel, build in rprov.get("releases", {}).items():
        known = bprov["releases"].get(rel)
        if known is None:
            bprov["releases"][rel] = build
        elif known != build and rel != "pmix-peer":
            sys.exit("merge.py: release %s is '%s' in %s but '%s' in %s"
                     % (rel, known, base_path, build, run_path))
    replaced = added = 0
    for c in run["cells"]:
        key = experiment(c)
        if key in at:
            base["cells"][at[key]] = c
            replaced += 1
        else:
            at[key] = len(base["cells"])
            base["cells"].append(c)
            added += 1
    if rprov.get("releases", {}).get("pmix-peer") not in (None, bprov["releases"].get("pmix-peer")):
        bprov["releases"]["pmix-peer"] += "; re-recorded cells: " + rprov["releases"]["pmix-peer"]
    bprov["command"] += "; then %s (%s) replaced %d cells and added %d%s" % (
        rprov["command"], rprov["date"], replaced, added, ": " + why if why else "")
    text = json.dumps(base, indent=1, ensure_ascii=False) + "\n"  # as assemble.py writes it
    with open(out_path, "w") as f:
        f.write(text)
    print("merge.py: %d cells replaced, %d added, %d in all -> %s"
          % (replaced, added, len(base["cells"]), out_path))


if __name__ == "__main__":
    main(sys.argv[:])
