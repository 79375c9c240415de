"""The studies' sub-commands and benchmarks are registered with snake_sim's command line as entry points, every module
of their folder once; the reproduction sections' tables list every module of their folders once."""

from pathlib import Path

import snake_studies
from snake_sim.benchmarks import BENCHMARKS
from snake_sim.commands import bench, cli
from snake_studies.reproduction import SECTIONS
from snake_studies.reproduction.document import EXPERIMENTS, REPORTS, report, section

PACKAGE = Path(snake_studies.__file__).parent


def _modules(folder: str, defining: str) -> set[str]:
    """The modules of ``folder`` whose text defines ``defining`` (a function or a constant)."""
    return {p.stem for p in (PACKAGE / folder).glob("*.py") if defining in p.read_text(encoding="utf-8")}


def test_every_command_module_is_a_registered_sub_command():
    registered = {m.__name__ for m in cli.commands()[len(cli.COMMANDS):]}
    assert registered == {f"snake_studies.commands.{m}" for m in _modules("commands", "def add_parser(")}


def test_every_benchmark_module_is_registered():
    registered = {m.__name__ for name, m in bench.modules().items() if name not in BENCHMARKS}
    assert registered == {f"snake_studies.benchmarks.{m}" for m in _modules("benchmarks", "\nTITLE")}


def test_every_section_name_has_its_experiment_and_its_report():
    assert set(EXPERIMENTS) == set(SECTIONS) == _modules("reproduction/experiments", "\ndef assemble(")
    assert set(REPORTS) == set(SECTIONS) == _modules("reproduction/reports", "\ndef render(")
    assert all(section(name).__name__ == f"snake_studies.reproduction.experiments.{name}" for name in SECTIONS)
    assert all(report(name).__name__ == f"snake_studies.reproduction.reports.{name}" for name in SECTIONS)
