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
