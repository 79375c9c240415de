"""``snake-sim reproduce [--only SECTION]... [--render] [--fast] [--workers N | --scheduler ADDRESS] [--out DIR]``:
run the reproduction sections, store their results, render docs/reproduction.md.

The sections' runs are tasks of the sweep engine (:mod:`snake_studies.grid`): one Dask cluster for the whole
reproduction, a LocalCluster of ``--workers`` processes (default: one per core) or the workers of a running
``--scheduler``, connected once and handed to every section; a progress bar per section.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from snake_studies.commands.sweep import add_cluster_arguments
from snake_studies.reproduction import SECTIONS

DOCS = Path("docs")
FAST_OUT = Path("out/reproduction-fast")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reproduce", help="regenerate docs/reproduction.md from runs")
    p.add_argument("--out", type=Path,
                   help="output folder: <out>/reproduction.md and its results in <out>/reproduction/ (default: docs/; "
                        f"with --fast {FAST_OUT}/, so a smoke test never overwrites the committed results)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--only", action="append", choices=SECTIONS,
                      help="run only this section (repeatable); the others are rendered from their stored results")
    mode.add_argument("--render", action="store_true",
                      help="run nothing: render <out>/reproduction.md from the stored results")
    p.add_argument("--fast", action="store_true", help="short runs (smoke test; numbers not for the docs)")
    add_cluster_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from snake_studies.reproduction.document import report, run_section, write_document  # every engine and figure
    from snake_studies.sweep.engine import connect

    out = args.out or (FAST_OUT if args.fast else DOCS)
    names = [] if args.render else args.only or SECTIONS
    with connect(args.workers, args.scheduler) if names else contextlib.nullcontext() as client:
        for name in names:
            title = report(name).TITLE
            start = time.perf_counter()
            print(f"[reproduce] {title} ...", flush=True)
            path = run_section(name, out, fast=args.fast, client=client)
            print(f"[reproduce] {title}: done in {time.perf_counter() - start:.1f} s, wrote {path}", flush=True)
    target, missing = write_document(out)
    for name in missing:
        print(f"[reproduce] no stored results for {name!r}: left out (snake-sim reproduce --only {name})",
              file=sys.stderr)
    print(f"wrote {target}")
    return 0
