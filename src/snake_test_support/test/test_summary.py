"""`make test`'s one summary of its pytest runs (snake_test_support.summary), on real pytest runs of a small suite:
the tests beside each other, then the real-time ones, as the Makefile runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SUITE = '''
import pytest

def test_passes():
    pass

def test_fails():
    assert 1 == 2, "one is not two"

@pytest.mark.skip(reason="needs a robot")
def test_skipped():
    pass

@pytest.mark.real_time
def test_real_time_fails():
    assert False, "late"

@pytest.mark.real_time
def test_real_time_passes():
    pass
'''


def pytest_run(folder: Path, name: str, *args: str) -> str:
    """One pytest run of the suite in ``folder`` writing <name>.xml as `make test` does; FILE=STATUS."""
    xml = folder / f"{name}.xml"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "junit_family=xunit1",
                           f"--junitxml={xml}", "-o", "markers=real_time", "-c", "/dev/null", "--rootdir", str(folder),
                           *args, str(folder / "test_suite.py")], capture_output=True, text=True, cwd=folder)
    return f"{xml}={done.returncode}"


def summary(*runs: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "snake_test_support.summary", *runs], capture_output=True, text=True)


def test_the_summary_counts_every_run_names_failures_and_skip_reasons_and_ends_with_pytests_last_line(tmp_path):
    (tmp_path / "test_suite.py").write_text(SUITE)
    main = pytest_run(tmp_path, "main", "-m", "not real_time")
    real_time = pytest_run(tmp_path, "real_time", "-m", "real_time")
    assert main.endswith("=1") and real_time.endswith("=1")  # each run failed: the second ran all the same
    done = summary(main, real_time)
    lines = done.stdout.splitlines()
    assert done.returncode == 1
    assert "FAILED test_suite.py::test_fails - AssertionError: one is not two" in lines
    assert any(line.startswith("FAILED test_suite.py::test_real_time_fails - AssertionError: late") for line in lines)
    assert "SKIPPED [1] needs a robot" in lines
    last = lines[-1]
    assert last.startswith("=") and last.endswith("=") and " 2 failed, 2 passed, 1 skipped in " in last


def test_a_run_without_results_or_interrupted_is_an_error_and_a_clean_run_passes(tmp_path):
    (tmp_path / "test_suite.py").write_text(SUITE)
    clean = pytest_run(tmp_path, "clean", "-k", "passes")
    assert clean.endswith("=0")
    done = summary(clean)
    assert done.returncode == 0 and " 2 passed in " in done.stdout.splitlines()[-1]
    done = summary(clean, f"{tmp_path / 'missing.xml'}=2", clean.replace("=0", "=2"))
    assert done.returncode == 1
    assert "ERROR missing: the pytest run ended with status 2 and wrote no results" in done.stdout
    assert "ERROR clean: the pytest run ended with status 2 (interrupted or an error of pytest)" in done.stdout
    assert " 4 passed, 2 errors in " in done.stdout.splitlines()[-1]
