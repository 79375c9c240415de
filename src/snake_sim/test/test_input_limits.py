"""Input limits of the simulator's files and flags: YAML without aliases (a few hundred bytes of nested aliases
are one error, not minutes of expansion), ``1e-4`` read as a number, and a run whose log would not fit refused
with the number before anything is allocated."""

import pytest
import yaml

from snake_core import yaml_files
from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.core.scenario import MAX_LOG_SAMPLES, load_scenario

PEDAL_WAVE = """\
model: vertical
robot: {name: koopaee6}
gait: {type: pedal_wave, amplitude: 0.5, frequency: 3.14, phase_shift: -1.2}
controller: {mode: position}
sim: {duration: 1.0, time_step: TIME_STEP, control_rate: 100}
"""


def laughs(depth: int) -> str:
    """Nested aliases: 9**depth leaves from a few hundred bytes."""
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, depth + 1)]
    return "\n".join(lines) + "\n"


def test_an_alias_is_refused_at_its_line():
    with pytest.raises(yaml.YAMLError, match=r"alias \*l0 is not allowed") as info:
        yaml_files.safe_load(laughs(2))
    assert info.value.problem_mark.line == 1


def test_a_scenario_file_with_nested_aliases_is_one_error(tmp_path, capsys):
    path = tmp_path / "bomb.yaml"
    path.write_text(PEDAL_WAVE.replace("TIME_STEP", "0.005") + "description:\n  " +
                    laughs(4).replace("\n", "\n  "))
    assert len(path.read_bytes()) < 1000
    with pytest.raises(ConfigError, match=r"bomb.yaml: <file> = .* not valid YAML .*alias \*l0 is not allowed"):
        load_scenario(path)
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("text", ["1e-4", "1E-4", "+1e-4", "1.0e-4"])
def test_an_exponent_without_a_dot_is_a_number_in_files_and_in_set(tmp_path, text):
    assert yaml_files.safe_load(f"x: {text}") == {"x": pytest.approx(1e-4)}
    path = tmp_path / "fine.yaml"
    path.write_text(PEDAL_WAVE.replace("TIME_STEP", text))
    assert load_scenario(path).time_step == pytest.approx(1e-4)
    assert load_scenario("pedal-wave", [f"sim.time_step={text}"]).time_step == pytest.approx(1e-4)
    assert yaml_files.safe_load("v: 1e3x") == {"v": "1e3x"} and yaml_files.safe_load("n: 12") == {"n": 12}


def test_a_run_whose_log_would_not_fit_is_refused_with_the_number_before_it_starts(tmp_path, capsys):
    assert main(["run", "pedal-wave", "--duration", "1e9", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "sim.duration = 1000000000.0 is invalid" in err[0] and "5e+10 logged samples" in err[0]
    assert f"{MAX_LOG_SAMPLES:,}" in err[0]
    limit = MAX_LOG_SAMPLES / 50.0  # pedal-wave logs at 50 Hz
    assert load_scenario("pedal-wave", [f"sim.duration={limit}"]).duration == limit
    with pytest.raises(ConfigError, match="logged samples"):
        load_scenario("pedal-wave", [f"sim.duration={limit * 1.01}"])


@pytest.mark.parametrize("text", ["pi**1000", "pi/0"])
def test_an_expression_without_a_finite_value_is_one_error_naming_the_field(tmp_path, capsys, text):
    assert main(["run", "pedal-wave", "--set", f"gait.amplitude={text}", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"gait.amplitude = '{text}' is invalid" in err[0], err


def _one_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("snake-sim: error:"), err
    return err[0]


def test_a_binary_scenario_file_is_refused_by_name_before_parsing(tmp_path, capsys):
    path = tmp_path / "image.yaml"
    path.write_bytes(b"model: vertical\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    assert "image.yaml" in (line := _one_error(capsys)) and "is not a text file" in line
    path.write_bytes("description: caf\xe9\n".encode("latin-1"))  # no NUL byte, not UTF-8
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    assert "is not a text file" in _one_error(capsys)


def test_a_scenario_file_over_the_size_limit_is_refused_from_its_size(tmp_path, capsys, monkeypatch):
    path = tmp_path / "huge.yaml"
    path.write_text(PEDAL_WAVE.replace("TIME_STEP", "0.005") + "# " + "x" * yaml_files.MAX_FILE_BYTES + "\n")
    monkeypatch.setattr(yaml_files, "safe_load", lambda _: pytest.fail("parsed a file over the size limit"))
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    line = _one_error(capsys)
    assert f"{path.stat().st_size:,} bytes, more than the {yaml_files.MAX_FILE_BYTES:,}" in line


@pytest.mark.parametrize("where", ["file", "set"])
def test_a_5000_deep_nesting_is_one_error_in_a_file_and_in_set(tmp_path, capsys, where):
    deep = "[" * 5000 + "]" * 5000
    path = tmp_path / "deep.yaml"
    path.write_text(PEDAL_WAVE.replace("TIME_STEP", "0.005") + (f"description: {deep}\n" if where == "file" else ""))
    argv = ["run", str(path), "--out", str(tmp_path / "out")] + (["--set", f"description={deep}"] if where == "set"
                                                                 else [])
    assert main(argv) == 2
    assert f"nested deeper than {yaml_files.MAX_DEPTH} levels" in _one_error(capsys)
    # the limit itself is allowed
    assert yaml_files.safe_load("[" * yaml_files.MAX_DEPTH + "]" * yaml_files.MAX_DEPTH) is not None


@pytest.mark.parametrize(("assignment", "message"), [
    ("world.start_x=1e308", "world.start_x = 1e+308 is invalid: must be a finite number of magnitude at most 1e+09"),
    ("world.start_x=2000", "world.start_x = 2000 is invalid: must be in [-1000, 1000]"),
    ("contact.friction=-1e12", "contact.friction = -1000000000000.0 is invalid: must be a finite number"),
    ("gait.amplitude=.nan", "gait.amplitude = nan is invalid"),
])
def test_every_number_of_a_scenario_is_range_checked(tmp_path, capsys, assignment, message):
    assert main(["run", "pedal-wave", "--set", assignment, "--out", str(tmp_path / "out")]) == 2
    assert message in _one_error(capsys)
