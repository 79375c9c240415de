"""results.csv survives: whole rows only (a write cut short by a full disk leaves the file as it was), one writer
per folder (a second sweep on the same --out is refused), a garbled file refused with one line naming its row,
and an output folder that cannot be written refused before a run."""

import resource
import subprocess
import sys

import pytest

from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.outputs.output_folder import writable_folder
from snake_studies.sweep.table import ResultsTable

GRID = ["sweep", "pedal-wave", "--grid", "gait.amplitude=0.5,0.6"]


def two_rows(path):
    table = ResultsTable(path)
    table.append({"cell": "a", "status": "ok", "speed": 0.1})
    table.append({"cell": "b", "status": "ok", "speed": 0.2})
    return path.read_bytes()


def test_a_write_cut_short_by_a_full_file_system_leaves_only_the_whole_rows(tmp_path):
    path = tmp_path / "results.csv"
    before = two_rows(path)
    table = ResultsTable(path)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 10, hard))  # room for 10 more bytes (EFBIG after)
    try:
        with pytest.raises(OSError):
            table.append({"cell": "c", "status": "ok", "speed": 0.123456789012345})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert path.read_bytes() == before
    again = ResultsTable(path)
    assert again.partial is None and again.done() == {"a", "b"}


def test_a_partial_last_row_is_seen_and_cut_off(tmp_path):
    path = tmp_path / "results.csv"
    whole = two_rows(path)
    path.write_bytes(whole + b"c,ok,0.1")  # a write killed within the line
    table = ResultsTable(path)
    assert table.done() == {"a", "b"} and table.partial == 4
    assert table.drop_partial() == 4 and path.read_bytes() == whole
    table.append({"cell": "c", "status": "ok", "speed": 0.3})
    assert ResultsTable(path).done() == {"a", "b", "c"}


@pytest.mark.parametrize(("damage", "line", "why"), [
    (lambda b: b.replace(b"b,ok,0.2", b"b,ok"), 3, "2 fields where the header has 3"),
    (lambda b: b.replace(b"a,ok,0.1", b'a,"ok,0.1'), 2, "not CSV"),
    (lambda b: b.replace(b"b,ok", b",ok"), 3, "no cell id"),
    (lambda b: b.replace(b"a,ok", b"\xff\xfe,ok"), 2, "not UTF-8 text"),
    (lambda b: b.replace(b"cell,", b"id,"), 1, "the header has no cell column"),
])
def test_a_garbled_file_is_refused_in_one_line_naming_the_row(tmp_path, capsys, damage, line, why):
    out = tmp_path / "s"
    out.mkdir()
    path = out / "results.csv"
    path.write_bytes(damage(two_rows(path)))
    with pytest.raises(ConfigError, match=f"results.csv line {line} .*garbled row: {why}"):
        ResultsTable(path)
    assert main([*GRID, "--resume", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"results.csv line {line}" in err[0], err


def test_a_second_writer_on_the_same_out_is_refused_and_the_file_is_left_alone(tmp_path, capsys):
    out = tmp_path / "s"
    out.mkdir()
    before = two_rows(out / "results.csv")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, pathlib; from snake_studies.sweep.table import writer_lock\n"
         "with writer_lock(pathlib.Path(sys.argv[1])):\n print('held', flush=True); sys.stdin.read()",
         str(out / "results.csv")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main([*GRID, "--resume", "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"is being written by another process (pid {holder.pid})" in err[0], err
    finally:
        holder.communicate("")
    assert (out / "results.csv").read_bytes() == before


def test_an_output_folder_that_cannot_be_written_is_refused_before_the_run(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match=r"--out = .* is invalid: cannot write there"):
        writable_folder(blocker / "out")
    assert writable_folder(tmp_path / "a" / "b").is_dir() and not any((tmp_path / "a" / "b").iterdir())
    assert main(["run", "pedal-wave", "--duration", "0.05", "--quiet", "--out", str(blocker / "out")]) == 2
    captured = capsys.readouterr()
    assert "running" not in captured.out and "cannot write there" in captured.err
