"""``snake-sim compare SCENARIO... [--set key=value]... [--duration S] --out DIR``.

Runs several scenarios on the same world (e.g. ``open-loop-obstacle stiffness-obstacle tsc-obstacle``, or one
gait in several models: ``open-loop-obstacle open-loop-obstacle-3d``) with the same overrides and writes, in DIR:
``compare.md`` (one table: model, distance, speed, climbed, time to climb, climb speed, each also relative to
the first scenario, and the 3-D models' roll-over), ``compare.json`` (the same rows), ``compare.png`` (progress,
per-cycle amplitude and phase of every joint, as 002 Figs. 7.2–7.5) and
``<scenario>/summary.json`` for every run.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from snake_core.validation import ConfigError, get, positive
from snake_sim.analysis.climb import climb_result
from snake_sim.analysis.summary import summarize
from snake_sim.core.models import runtime_for
from snake_sim.core.scenario import Scenario, load_scenario
from snake_sim.core.world import load_world
from snake_sim.outputs.output_folder import writable_folder


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="run several scenarios on one world; one table and one figure")
    p.add_argument("scenarios", nargs="+", metavar="SCENARIO", help="scenario names or YAML paths (first = baseline)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a field in every scenario, e.g. world.file=two_obstacles (repeatable)")
    p.add_argument("--duration", type=float, help="simulated time of every run [s]")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def load_compared(names: list[str], overrides: list[str]) -> list[Scenario]:
    """Load and validate every scenario before anything runs; they must share one world and start.

    ``--set`` applies to every scenario, so a field one controller mode does not know is refused.
    """
    scenarios = [load_scenario(n, overrides) for n in names]
    worlds = sorted({(s.world_file, s.start_x) for s in scenarios})
    if len(worlds) > 1:
        raise ConfigError("world", ", ".join(f"{w} (start_x {x})" for w, x in worlds),
                          "compare runs its scenarios on one world from one start; give --set world.file=NAME "
                          "(and world.start_x) to put them on the same one")
    for s in scenarios:
        get(s.section("gait"), "frequency", "gait", s.source)  # the cycle analysis needs ω
        runtime_for(s.model, s.source).build(s)  # validate every section now, not after the first runs
    return scenarios


def run(args: argparse.Namespace) -> int:
    from snake_sim.outputs.compare_plot import ComparedRun, compare_figure, compare_rows, markdown_table  # matplotlib

    overrides = list(args.overrides)
    if args.duration is not None:
        positive(args.duration, "--duration")
        overrides.append(f"sim.duration={args.duration!r}")
    scenarios = load_compared(args.scenarios, overrides)
    world = load_world(scenarios[0].world_file)
    writable_folder(args.out)
    runs: list[ComparedRun] = []
    used: set[str] = set()
    for i, sc in enumerate(scenarios):
        label = sc.name if sc.name not in used else f"{sc.name}#{i + 1}"
        used.add(label)
        print(f"[{i + 1}/{len(scenarios)}] {label}: {sc.duration:g} s on {world.name} ...", flush=True)
        start = time.perf_counter()
        runtime = runtime_for(sc.model, sc.source)
        log = runtime.run_scenario(sc, progress=not args.quiet)
        summary = summarize(log, time.perf_counter() - start, sc.name, world, extra=runtime.summary_extra(log, sc))
        (args.out / label).mkdir(exist_ok=True)
        (args.out / label / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        runs.append(ComparedRun(label, sc.section("controller").get("mode", "position"), log,
                                float(sc.section("gait")["frequency"]), summary, climb_result(log, world), sc.model))
    rows = compare_rows(runs)
    table = markdown_table(rows)
    (args.out / "compare.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    (args.out / "compare.md").write_text(f"# Comparison on {world.name}\n\n{table}\n", encoding="utf-8")
    figure = compare_figure(runs, args.out / "compare.png", f"progress on {world.name}")
    print(table)
    print(f"wrote {args.out / 'compare.md'}, {args.out / 'compare.json'}, {figure}")
    return 0 if all(r.log.status == "ok" for r in runs) else 1
