"""Checks of the test run itself, for the tests of every package."""

from __future__ import annotations

import pytest

#: Why a test of an xdist_group mark cannot run with its group here.
UNGROUPED = pytest.StashKey[str]()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup`` pytest-xdist sends the tests of one ``xdist_group`` mark to one worker by
    suffixing their node ids with ``@<group>`` (in its own pytest_collection_modifyitems, which runs before this
    one). With a pytest where that suffix does not take, a group is spread over the workers without a word (each
    worker pays the group's shared set-up again, and tests meant to run one after the other run side by side):
    then every grouped test fails, saying so."""
    if not getattr(config.option, "loadgroup", False):
        return
    lost = [item for item in items if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if lost:
        why = (f"--dist loadgroup: pytest {pytest.__version__} with this pytest-xdist does not group the xdist_group "
               f"tests ({len(lost)} of them): install the pytest that requirements.txt pins")
        for item in lost:
            item.stash[UNGROUPED] = why


def pytest_runtest_setup(item: pytest.Item) -> None:
    if UNGROUPED in item.stash:
        pytest.fail(item.stash[UNGROUPED], pytrace=False)


#: The busy-loop processes of ``--busy``, in the config's stash.
BUSY = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--busy", type=int, default=0, metavar="N",
                     help="run the tests beside N busy-loop processes (a loaded machine: `make test-stress`)")


def pytest_configure(config: pytest.Config) -> None:
    """``--busy N``: N processes that spin on the CPU from before the first test to after the last one, started once
    (by pytest-xdist's controller, not by each worker) and ended by their own process ids."""
    import subprocess
    import sys

    n = config.getoption("busy")
    if n < 0:
        raise pytest.UsageError(f"--busy {n}: the number of busy processes must be 0 or more")
    if n and not hasattr(config, "workerinput"):
        # each one ends with this process too, should it die without unconfiguring (prctl PR_SET_PDEATHSIG, Linux)
        loop = ("import ctypes, signal; ctypes.CDLL(None).prctl(1, signal.SIGKILL)\n" if sys.platform == "linux"
                else "") + "while True: pass"
        config.stash[BUSY] = [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(n)]


def pytest_unconfigure(config: pytest.Config) -> None:
    for process in config.stash.get(BUSY, []):
        process.kill()
        process.wait()


def pytest_report_header(config: pytest.Config) -> str | None:
    busy = config.stash.get(BUSY, [])
    return f"beside {len(busy)} busy-loop processes (--busy)" if busy else None
