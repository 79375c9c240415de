"""``snake-sim run SCENARIO|FILE [--set key=value]... [--duration S] [--out DIR] [--no-animation] [--check-step]``.

Runs a scenario with its model's runtime (:func:`snake_sim.core.models.runtime_for`) and writes, in DIR:
summary.json (with the model's own fields), plots (joints.png, com.png and the model's), animation.gif,
rosbag/ (docs/design.md "Command line").
The output folder is made and checked before the run (an unwritable DIR is refused, exit 2). Outputs are written
even when the run stops on a non-finite state (status says when and where) or is stopped by SIGINT (Ctrl-C) or
SIGTERM: then with ``status: interrupted`` and the time reached, exit 130 or 143 (:mod:`snake_sim.core.signals`).
Every output is written under a temporary name and renamed when whole (:mod:`snake_sim.outputs.output_folder`), in
the order summary.json, plots, rosbag/, animation.gif, each announced by a line; a signal while they are written
stops the writing with what is whole kept (one line, exit 130 or 143); an output that cannot be written (a full
disk) does not stop the others: one line names it, exit 2.
``--check-step`` runs the scenario again at half its ``sim.time_step`` and adds ``step_check`` to
summary.json (``snake_sim.analysis.step_check``): both values of every verdict and number and their relative change.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from snake_core.validation import positive
from snake_sim.analysis.step_check import format_step_check, step_check
from snake_sim.analysis.summary import format_summary, summarize
from snake_sim.core.models import ModelRuntime, run_world, runtime_for
from snake_sim.core.runlog import RunLog
from snake_sim.core.scenario import Scenario, load_scenario
from snake_sim.core.signals import INTERRUPTED, interrupt_on_signals, interrupted_by, stop_on_signals
from snake_sim.core.world import World
from snake_sim.outputs.output_folder import OutputWriter, writable_folder, write_text


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a scenario and write summary, plots and animation")
    p.add_argument("scenario", help="scenario name (snake-sim list) or path to a scenario YAML")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario field by its dotted path, e.g. gait.amplitude=pi/4 (repeatable)")
    p.add_argument("--duration", type=float, help="simulated time [s] (overrides sim.duration)")
    p.add_argument("--out", type=Path, help="output folder (default: out/<scenario>)")
    p.add_argument("--no-animation", action="store_true", help="skip the GIF")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--check-step", action="store_true",
                   help="rerun at half of sim.time_step and report every verdict's and number's change (step_check)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    overrides = list(args.overrides)
    if args.duration is not None:
        positive(args.duration, "--duration")
        overrides.append(f"sim.duration={args.duration!r}")
    scenario = load_scenario(args.scenario, overrides)
    out = writable_folder(args.out or Path("out") / scenario.name)
    runtime = runtime_for(scenario.model, scenario.source)
    world = run_world(runtime, scenario)
    print(f"running {scenario.name} ({scenario.model} model, {scenario.duration:g} s simulated) ...", flush=True)
    with stop_on_signals() as stop:
        start = time.perf_counter()
        log = runtime.run_scenario(scenario, progress=not args.quiet, stop=stop)
        summary = summarize(log, time.perf_counter() - start, scenario.name, world,
                            extra=runtime.summary_extra(log, scenario))
        if args.check_step and not stop.requested:
            print(f"checking the step: {scenario.name} again at {0.5 * scenario.time_step:g} s ...", flush=True)
            half = load_scenario(args.scenario, [*overrides, f"sim.time_step={0.5 * scenario.time_step!r}"])
            start = time.perf_counter()
            half_log = runtime.run_scenario(half, progress=not args.quiet, stop=stop)
            if not stop.requested:
                half_summary = summarize(half_log, time.perf_counter() - start, half.name, world,
                                         extra=runtime.summary_extra(half_log, half))
                summary["step_check"] = step_check(summary, half_summary, scenario.time_step)
    if stop.requested and summary["status"] != INTERRUPTED:  # the run was complete, its step check was not
        summary.update(status=INTERRUPTED, time_reached_s=summary["duration_s"])
    expected = scenario.expected(log.status)
    if expected:
        summary["expected"] = expected
    print(format_summary(summary))
    if "step_check" in summary:
        print(format_step_check(summary["step_check"]))
    writer = OutputWriter(quiet=args.quiet)
    try:
        with interrupt_on_signals():
            _write(writer, runtime, scenario, log, summary, out, world, args)
    except KeyboardInterrupt as exc:  # a signal while writing: the files written are whole, the one under way is not
        by = interrupted_by(exc)
        print(f"snake-sim: {by.name} while writing {writer.current}: stopped the writing; kept whole in {out}: "
              f"{writer.kept()}", file=sys.stderr)
        return by.exit_code
    print("wrote " + ", ".join(str(p) for p in writer.written))
    if expected:
        print(f"expected          {expected}")
    if writer.failed:
        print(f"snake-sim: error: cannot write {'; '.join(writer.failed)} in {out}; kept whole: {writer.kept()}",
              file=sys.stderr)
        return 2
    if stop.requested:
        print(f"snake-sim: {stop.name}: stopped at t = {summary['duration_s']:.2f} s of {scenario.duration:g} s "
              f"simulated; the outputs up to then are in {out}", file=sys.stderr)
        return stop.exit_code
    return 0 if log.status == "ok" or expected else 1


def _write(writer: OutputWriter, runtime: ModelRuntime, scenario: Scenario, log: RunLog, summary: dict, out: Path,
           world: World, args: argparse.Namespace) -> None:
    """summary.json, the model's plots, the rosbag and the animation, in that order (the slowest last), each whole."""
    writer.step("summary.json", lambda: [write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")])
    outputs = scenario.data["outputs"]
    if len(log.t) > 1 and outputs["plots"]:
        writer.step("plots", lambda: _figures(runtime, log, out, world, plots=True))
    if len(log.t) > 0:
        from snake_sim.outputs.recording import write_rosbag

        writer.step("rosbag/", lambda: [write_rosbag(log, out / "rosbag", progress=not args.quiet)])
    if len(log.t) > 1 and outputs["animation"] and not args.no_animation:
        writer.step("animation.gif", lambda: _figures(runtime, log, out, world, plots=False))


def _figures(runtime: ModelRuntime, log: RunLog, out: Path, world: World, plots: bool) -> list[Path]:
    """The model's plots (``plots``) or its animation."""
    from snake_sim.outputs.figures import write_figures  # matplotlib and the MuJoCo renderer: only when drawing

    return write_figures(runtime.FIGURES, log, out, world, animation=not plots, plots=plots)
