"""The name → module tables of the command line and the benchmarks are plain imports that list every module of their
folder once, in the order their names say; the sub-commands and benchmarks of packages above the simulator follow
them, read from their entry points."""

from pathlib import Path

import snake_sim
from snake_sim.benchmarks import BENCHMARKS
from snake_sim.commands import bench, cli

PACKAGE = Path(snake_sim.__file__).parent


def _modules(folder: str, defining: str) -> set[str]:
    """The modules of ``folder`` whose text defines ``defining`` (a function or a constant)."""
    return {p.stem for p in (PACKAGE / folder).glob("*.py") if defining in p.read_text(encoding="utf-8")}


def test_every_command_module_is_a_sub_command():
    assert {m.__name__.rpartition(".")[2] for m in cli.COMMANDS} == _modules("commands", "def add_parser(")
    found = cli.commands()
    assert found[:len(cli.COMMANDS)] == cli.COMMANDS and all(callable(m.add_parser) for m in found)


def test_every_benchmark_name_has_its_module_in_order():
    found = bench.modules()
    assert tuple(found) == bench.names() and bench.names()[:len(BENCHMARKS)] == BENCHMARKS
    assert set(BENCHMARKS) == _modules("benchmarks", "\nTITLE")
    assert all(callable(m.run) and m.TITLE for m in found.values())
