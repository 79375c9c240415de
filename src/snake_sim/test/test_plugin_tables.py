"""The name → module tables of the command line, the benchmarks and the reproduction sections are plain imports that
list every module of their folder once, in the order their names say."""

from pathlib import Path

import snake_sim
from snake_sim.benchmarks import BENCHMARKS
from snake_sim.commands import bench, cli
from snake_sim.reproduction import SECTIONS
from snake_sim.reproduction.document import EXPERIMENTS, REPORTS, report, section

PACKAGE = Path(snake_sim.__file__).parent


def _modules(folder: str, defining: str) -> set[str]:
    """The modules of ``folder`` whose text defines ``defining`` (a function or a constant)."""
    return {p.stem for p in (PACKAGE / folder).glob("*.py") if defining in p.read_text(encoding="utf-8")}


def test_every_command_module_is_a_sub_command():
    assert {m.__name__.rpartition(".")[2] for m in cli.COMMANDS} == _modules("commands", "def add_parser(")


def test_every_benchmark_name_has_its_module_in_order():
    found = bench.modules()
    assert tuple(found) == BENCHMARKS and set(BENCHMARKS) == _modules("benchmarks", "\nTITLE")
    assert all(callable(m.run) and m.TITLE for m in found.values())


def test_every_section_name_has_its_experiment_and_its_report():
    assert set(EXPERIMENTS) == set(SECTIONS) == _modules("reproduction/experiments", "\ndef assemble(")
    assert set(REPORTS) == set(SECTIONS) == _modules("reproduction/reports", "\ndef render(")
    assert all(section(name).__name__ == f"snake_sim.reproduction.experiments.{name}" for name in SECTIONS)
    assert all(report(name).__name__ == f"snake_sim.reproduction.reports.{name}" for name in SECTIONS)
