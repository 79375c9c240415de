"""snake-sim calibrate (snake_studies.calibrate): a recording made by the suite itself at known values away from
the robot file's and the scenario's, with 002's 12-bit encoder quantisation (Table 3.2) and noise, calibrated with
the scenario's defaults for everything else over a box holding both, gives the values back, on the vertical model and
on MuJoCo; a field with no effect is reported not identifiable; bad input is one error before any run; a calibration
resumes."""

import dataclasses
import math
import shutil

import numpy as np
import pytest
import yaml
from rosbags.highlevel import AnyReader
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from snake_core.validation import ConfigError
from snake_core.vertical.kinematics import link_angles, link_positions
from snake_sim.commands.cli import main
from snake_sim.core.models import runtime_for
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.mujoco import model as mm
from snake_sim.engines.mujoco import runtime as mujoco_runtime
from snake_sim.engines.vertical.model import build
from snake_sim.outputs.recording import write_rosbag
from snake_studies import calibrate as cal
from snake_studies.calibrate import (
    Calibration,
    Recording,
    WindowLoss,
    calibrate,
    parse_fits,
    read_recording,
    recorded_states,
    recorded_states_3d,
)
from snake_studies.calibration_bootstrap import SIGNALS, Encoders
from snake_studies.calibration_report import fit_figure, loss_figure, pairs_figure
from snake_studies.sweep import engine

#: One Dask LocalCluster at a time: the cluster tests run one after the other on one pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("dask_cluster")

#: The recording's true values, away from the robot file's and the scenario's (μ_c 0.6, K 1.74 N·m/rad).
TRUTH = {"contact.friction": 0.9, "robot.sea_stiffness": 2.5}
#: Recorded seconds (three windows of 1 s).
DURATION_S = 3.0
#: 002 Table 3.2: 12-bit absolute encoders on α and β.
QUANTUM = 2.0 * math.pi / 4096
#: Encoder noise added before quantisation [rad].
NOISE = 0.002
#: The fit's box: the search starts from its middle, off the truth; side friction has no box to act on.
FITS = ["contact.friction=0.2:1.5", "robot.sea_stiffness=1.2:5", "world.side_friction=0:5"]
#: Relative error of each recovered value. Measured over six seeds of this search: μ_c 0.8995-0.9149 (within 1.7 %),
#: K 2.510-2.515 (within 0.6 %); the box's middles (0.85, 3.1) are 6 % and 24 % off. (With K's box 1-4, whose middle
#: is the truth, the polish ended in a nearby minimum of the contact model in two searches of six: μ_c 0.82 and 1.01.)
TOLERANCE = {"contact.friction": 0.03, "robot.sea_stiffness": 0.03}
SEED = 1  # of the calibrations' CMA-ES search: the same trials every run

#: MuJoCo: the 3-D twin of pedal-wave at its 2 ms step, recorded at values away from the robot file's and the
#: scenario's (μ_c 0.6, K_p 60 N·m/rad), four seconds in two windows of 2 s (windows of 1 s measured a flatter loss:
#: the restart's transient weighs more in them).
TRUTH_3D = {"contact.friction": 0.9, "robot.motor_kp": 40.0}
DURATION_3D_S, WINDOW_3D_S = 4.0, 2.0
#: The box's middles (0.8, 56.6 in log-space) are 11 % and 41 % off the truth.
FITS_3D = ["contact.friction=0.2:1.4", "robot.motor_kp=20:160", "world.side_friction=0:5"]
#: Relative error of each recovered value on MuJoCo. Measured over seven searches of 40 trials (seeds 1-4 on a box
#: 0.3-1.5 x 20-120, 1-3 on this one): μ_c 0.863-0.952 (within 5.8 %), K_p 37.4-42.4 (within 6.6 %). Wider than the
#: vertical model's: a restart cannot know the base's angular rate, which the tail link's contact makes jump between
#: samples (by differences of the 50 Hz /tf it is 50 % off; restarted from MuJoCo's exact state the loss at the truth
#: is 4e-5 instead of 2e-3).
TOLERANCE_3D = 0.08
TRIALS_3D = 40


def record(path, sets, noise=0.0, seed=1, scenario="pedal-wave", duration=DURATION_S):
    """The suite's own rosbag of ``scenario`` at ``sets``, α and β quantised and noisy as the encoders read them."""
    scenario = load_scenario(scenario, [f"sim.duration={duration}", *sets])
    log = runtime_for(scenario.model, scenario.source).run_scenario(scenario)
    rng = np.random.default_rng(seed)
    if noise:
        encoders = Encoders((noise, noise), (QUANTUM, QUANTUM))
        for name in SIGNALS:
            setattr(log, name, encoders.read(getattr(log, name), name, rng))
    return write_rosbag(log, path), log


@pytest.fixture(scope="module")
def bag(tmp_path_factory):
    return record(tmp_path_factory.mktemp("rec") / "bag", [f"{k}={v}" for k, v in TRUTH.items()], NOISE)[0]


@pytest.fixture(scope="module")
def calibrated(bag, tmp_path_factory):
    out = tmp_path_factory.mktemp("cal") / "o"
    spec = Calibration("pedal-wave", bag, parse_fits(FITS, ["robot.sea_stiffness"]), (f"sim.duration={DURATION_S}",))
    # one worker and a seeded search: the same trials every run (an unseeded search of 16 trials once ended its
    # polish in a false minimum of the contact model, μ_c 0.79 for 0.9)
    return spec, out, calibrate(spec, out, 16, workers=1, progress=False, seed=SEED)


def test_a_recording_restarts_the_model_in_its_recorded_state(tmp_path):
    path, log = record(tmp_path / "bag", [])
    rec = read_recording(path)
    setup = build(load_scenario("pedal-wave", [f"sim.duration={DURATION_S}"]))
    q, _ = recorded_states(setup, rec)
    x, z = np.array([link_positions(setup.model, qi) for qi in q]).transpose(1, 0, 2)
    np.testing.assert_allclose(x, log.link_position[:, :, 0], atol=1e-9)
    np.testing.assert_allclose(z, log.link_position[:, :, 2], atol=1e-9)
    np.testing.assert_allclose([link_angles(setup.model, qi) for qi in q], log.link_angle, atol=1e-9)
    loss = WindowLoss(rec)
    assert loss.starts() == [0, 50, 100]  # 50 Hz samples, windows of 1 s
    r, logs = loss.evaluate(setup.scenario)
    assert all(w.status == "ok" for w in logs)
    off = loss.evaluate(load_scenario("pedal-wave", [f"sim.duration={DURATION_S}", "contact.friction=0.66"]))[0]
    assert r @ r < 0.05 * (off @ off)  # the recorded values fit far better than a μ_c 10 % off


@pytest.mark.parametrize("scenario", ["pedal-wave", "open-loop-flat-3d"])
def test_a_runs_recording_without_the_file_is_the_one_read_from_its_bag(tmp_path, scenario):
    """Recording.of_log (the bootstrap's synthetic recordings) is what read_recording reads from write_rosbag's bag of
    the same run: vertical and MuJoCo."""
    path, log = record(tmp_path / "bag", [], scenario=scenario, duration=0.5)
    read, made = read_recording(path), Recording.of_log(log)
    for name in ("t", "alpha", "alpha_dot", "beta", "base"):
        np.testing.assert_allclose(getattr(made, name), getattr(read, name), rtol=0, atol=1e-9, err_msg=name)


def test_calibrate_writes_the_bootstrap_interval_beside_the_profile_one(tmp_path, capsys):
    bag = record(tmp_path / "bag", ["contact.friction=0.9"], NOISE, duration=1.0)[0]
    out = tmp_path / "o"
    assert main(["calibrate", "pedal-wave", "--bag", str(bag), "--fit", "contact.friction=0.2:1.5", "--window", "0.5",
                 "--trials", "4", "--restarts", "1", "--bootstrap", "4", "--seed", "1", "--workers", "1",
                 "--set", "sim.duration=1.0", "--quiet", "--out", str(out)]) == 0
    assert "(the hull of the bootstrap interval" in capsys.readouterr().out
    result = yaml.safe_load((out / "result.yaml").read_text())
    friction = result["fields"]["contact.friction"]
    assert friction["interval_95_method"] == "hull of profile and bootstrap"
    lo, hi = friction["interval_95"]
    (p_lo, p_hi), (b_lo, b_hi) = friction["interval_95_profile"], friction["interval_95_bootstrap"]
    assert (lo, hi) == (min(p_lo, b_lo), max(p_hi, b_hi)) and b_lo < b_hi
    assert math.isfinite(friction["bootstrap_bias"])
    boot = result["bootstrap"]
    assert boot["replicates"] == 4 and boot["failed"] == 0 and boot["seed"] == 1
    assert boot["encoder_quantum_rad"]["alpha"] == pytest.approx(QUANTUM)
    text = (out / "report.md").read_text()
    row = f"{lo:.4g} … {hi:.4g} (hull of profile and bootstrap) | {p_lo:.4g} … {p_hi:.4g} | {b_lo:.4g} … {b_hi:.4g} |"
    assert row in text
    assert "The bootstrap interval is the parametric bootstrap" in text and "4 replicates" in text
    assert "the bootstrap's (orange band)" in text and (out / "loss.png").stat().st_size > 0


def test_the_recordings_delay_is_where_the_loss_is_least(tmp_path):
    _, log = record(tmp_path / "full", [])
    k = 2  # a recording that starts 2 samples (0.04 s) into the gait: its clock is 0.04 s ahead, d = −0.04 s
    late = dataclasses.replace(log, **{f.name: getattr(log, f.name)[k:] for f in dataclasses.fields(log)
                                       if isinstance(getattr(log, f.name), np.ndarray)})
    loss = WindowLoss(read_recording(write_rosbag(late, tmp_path / "bag")))
    scenario = load_scenario("pedal-wave")
    values = {d: float(r @ r) for d in (-0.06, -0.04, -0.02, 0.0, 0.02)
              for r in [loss.evaluate(scenario, {"recording.delay": d})[0]]}
    assert min(values, key=values.get) == -0.04
    assert values[-0.04] < 0.01 * values[0.0]


def test_an_encoders_offset_is_where_the_loss_is_least(tmp_path):
    _, log = record(tmp_path / "full", [])
    log.alpha[:, 2] += 0.03  # joint 3's α encoder reads 0.03 rad high
    loss = WindowLoss(read_recording(write_rosbag(log, tmp_path / "bag")))
    scenario = load_scenario("pedal-wave")
    values = {b: float(r @ r) for b in (-0.03, 0.0, 0.02, 0.03, 0.04)
              for r in [loss.evaluate(scenario, {"recording.alpha_offset.3": b})[0]]}
    assert min(values, key=values.get) == 0.03
    assert values[0.03] < 0.01 * values[0.0]


def test_a_sqlite3_recording_reads_as_its_mcap_twin(bag, tmp_path):
    store = get_typestore(Stores.ROS2_JAZZY)
    with AnyReader([bag], default_typestore=store) as reader, \
            Writer(tmp_path / "sq", version=9, storage_plugin=StoragePlugin.SQLITE3) as writer:
        conns = {c.id: writer.add_connection(c.topic, c.msgtype, typestore=store) for c in reader.connections}
        for c, t, raw in reader.messages():
            writer.write(conns[c.id], t, raw)
    mcap, sqlite = read_recording(bag), read_recording(tmp_path / "sq")
    for name in ("t", "alpha", "alpha_dot", "beta", "base"):
        np.testing.assert_array_equal(getattr(mcap, name), getattr(sqlite, name))


def test_calibration_recovers_the_recorded_values_from_the_defaults(calibrated):
    _, out, outcome = calibrated
    fitted = {f.key: f for f in outcome.fitted}
    for key, truth in TRUTH.items():
        f = fitted[key]
        assert f.identifiable and f.interval[0] < f.value < f.interval[1]
        assert f.value == pytest.approx(truth, rel=TOLERANCE[key]), key
    assert outcome.loss <= outcome.loss_start
    result = yaml.safe_load((out / "result.yaml").read_text())
    assert result["fields"]["contact.friction"]["value"] == fitted["contact.friction"].value
    scenario = load_scenario(out / "fitted.yaml")
    assert scenario.name == "pedal-wave-fitted"
    assert scenario.data["contact"]["friction"] == fitted["contact.friction"].value
    for name in ("report.md", "fit.png", "trials.csv", "study.log", "calibration.yaml"):
        assert (out / name).is_file(), name
    assert len((out / "trials.csv").read_text().splitlines()) == 17


def test_a_field_without_effect_is_not_identifiable_and_frozen(calibrated):
    _, out, outcome = calibrated
    side = next(f for f in outcome.fitted if f.key == "world.side_friction")  # a flat world has no box faces
    assert not side.identifiable and side.interval is None and side.value == side.start
    result = yaml.safe_load((out / "result.yaml").read_text())["fields"]["world.side_friction"]
    assert result["identifiable"] is False and "not identifiable from this recording" in result["note"]


def test_a_calibration_resumes_only_with_resume(calibrated, tmp_path):
    spec, done, first = calibrated
    out = shutil.copytree(done, tmp_path / "o")  # the other tests read the calibrated folder as it was
    with pytest.raises(ConfigError, match="holds a calibration: add --resume"):
        calibrate(spec, out, 20, workers=1, progress=False)
    other = Calibration(spec.scenario, spec.bag, spec.fit[:2], spec.sets)
    with pytest.raises(ConfigError, match="another scenario, recording or box"):
        calibrate(other, out, 20, workers=1, progress=False, resume=True)
    again = calibrate(spec, out, first.trials + 2, workers=1, progress=False, resume=True, restarts=1)
    assert again.trials == first.trials + 2
    assert len((out / "trials.csv").read_text().splitlines()) == first.trials + 3


@pytest.mark.parametrize(("argv", "message"), [
    ([], "--fit = [] is invalid: give at least one"),
    (["--fit", "contact.frictio=0.2:1"], "contact.frictio = 0.2 is invalid: unknown field"),
    (["--fit", "contact.friction=1:0.5"], "non-empty range: LO < HI"),
    (["--fit", "contact.friction=0.2:9"], "contact.friction = 9.0 is invalid"),
    (["--fit", "contact.friction=0.2:1", "--log", "contact.damping"], "is not a --fit field"),
    (["--fit", "contact.damping=0:20", "--log", "contact.damping"], "a log range needs LO > 0"),
    (["--fit", "contact.friction=0.2:1", "--window", "2"], "longer than half the recording"),
    (["--fit", "recording.gain=0:1"], "the recording's fields are recording.delay and"),
    (["--fit", "recording.alpha_offset.6=-0.1:0.1"], "the robot has joints 1 to 5"),
    (["--fit", "contact.friction=0.2:1", "--trials", "0"], "--trials = 0 is invalid"),
    (["--fit", "contact.friction=0.2:1", "--bag", "nowhere"], "not a rosbag2 folder"),
    (["--fit", "contact.friction=0.2:1", "--scenario", "pushing"], "restarts the engines vertical, mujoco"),
    (["--fit", "contact.friction=0.2:1", "--scheduler", "tcp://127.0.0.1:9"], "no Dask scheduler answered"),
])
def test_bad_input_is_one_error_before_any_run(bag, tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.setattr(engine, "CONNECT_TIMEOUT_S", 1.0)
    out = tmp_path / "o"
    scenario = "pedal-wave"
    if "--scenario" in argv:
        i = argv.index("--scenario")
        scenario, argv = argv[i + 1], argv[:i] + argv[i + 2:]
    args = ["calibrate", scenario, "--bag", str(bag), "--out", str(out), *argv]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err
    assert not out.exists()


def test_a_recording_without_motor_angles_is_refused(tmp_path):
    store = get_typestore(Stores.ROS2_JAZZY)
    t = store.types
    with Writer(tmp_path / "rigid", version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        conn = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=store)
        for k in range(3):
            header = t["std_msgs/msg/Header"](stamp=t["builtin_interfaces/msg/Time"](sec=k, nanosec=0), frame_id="")
            msg = t["sensor_msgs/msg/JointState"](header=header, name=["joint_1"], position=np.array([0.1]),
                                                  velocity=np.array([0.0]), effort=np.array([0.0]))
            writer.write(conn, k * 1_000_000_000, bytes(store.serialize_cdr(msg, "sensor_msgs/msg/JointState")))
    with pytest.raises(ConfigError, match=r"needs α and β of every joint: joint_j and motor_j"):
        read_recording(tmp_path / "rigid")


def test_the_report_states_the_method_the_restarts_and_links_its_figures(calibrated):
    spec, out, outcome = calibrated
    result = yaml.safe_load((out / "result.yaml").read_text())
    friction = result["fields"]["contact.friction"]
    lo, hi = friction["interval_95"]
    assert lo < friction["value"] < hi and friction["interval_95_gauss_newton"] is not None
    assert "cluster-robust" in result["interval_method"]
    assert len(result["restarts"]) == len(outcome.fit.restarts) >= 2
    assert result["restarts_agree"] == all(r["agrees"] for r in result["restarts"])
    assert min(r["loss"] for r in result["restarts"]) == result["loss"]["polished"]
    keys = [r.key for r in spec.fit]
    assert set(result["near_best_correlation"]) == {f"{a} ~ {b}" for i, a in enumerate(keys) for b in keys[i + 1:]}
    text = (out / "report.md").read_text()
    for name in ("fit.png", "loss.png", "pairs.png"):
        assert f"]({name})" in text and (out / name).stat().st_size > 0, name
    for words in ("**The question**", "**The method**", "**Intervals**", "**Restarts**", "snake-sim run fitted.yaml",
                  "not identifiable from this recording"):
        assert words in text, words


def test_the_figures_show_each_joint_each_field_and_each_pair(calibrated):
    spec, out, outcome = calibrated
    trials = cal.search_trials(out, spec.fit)
    loss = WindowLoss(read_recording(spec.bag), spec.window)
    problem = cal.CalibrationProblem(spec.scenario, spec.fit, "loss", sets=spec.sets)
    fig = fit_figure(loss, loss.evaluate_at(problem, {f.key: f.value for f in outcome.fitted})[1])
    assert len(fig.axes) == loss.recording.n_joints  # one panel per joint, α and β recorded and fitted in each
    for ax in fig.axes:
        labels = [line.get_label() for line in ax.get_lines()]
        assert {"recorded α", "recorded β"} <= set(labels)
        assert len(labels) == 2 + 2 * len(loss.starts())
    fig = loss_figure(outcome.fit, trials)
    assert [ax.get_xlabel().split(" ")[0] for ax in fig.axes] == [r.key for r in spec.fit]
    for ax, f in zip(fig.axes, outcome.fitted, strict=True):
        assert len(ax.collections[0].get_offsets()) == len(trials)  # every trial a point
        profile = [line for line in ax.get_lines() if line.get_label() == "profile"]
        assert bool(profile) == f.identifiable
    fig = pairs_figure(outcome.fit, trials)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert len(titles) == 3 and all(t.startswith("r = ") for t in titles)  # three fields: three pairs


def test_a_mujoco_recording_restarts_the_model_in_its_recorded_state(tmp_path):
    """α, β, α̇ and link 1's 6-DoF pose from the bag; the other links follow from them (MuJoCo's logged link poses
    are those at the start of its last step, h before the joint angles: within a step's motion, 2 mm)."""
    path, log = record(tmp_path / "bag", [], scenario="open-loop-flat-3d")
    setup = mujoco_runtime.build(load_scenario("open-loop-flat-3d", [f"sim.duration={DURATION_S}"]))
    q, v = recorded_states_3d(setup, read_recording(path))
    for k in range(0, len(log.t), 10):
        data = mm.state_data(setup.model, q[k], v[k])
        np.testing.assert_allclose(mm.alpha(setup.model, data), log.alpha[k], atol=1e-12)
        np.testing.assert_allclose(mm.alpha_dot(setup.model, data), log.alpha_dot[k], atol=1e-12)
        np.testing.assert_allclose(mm.beta(setup.model, data), log.beta[k], atol=1e-12)
        np.testing.assert_allclose(mm.link_origins(setup.model, data)[0], log.series["link_origin"][k, 0], atol=1e-9)
        np.testing.assert_allclose(mm.link_rotations(setup.model, data)[0], log.series["link_rotation"][k, 0],
                                   atol=1e-9)
        np.testing.assert_allclose(mm.link_origins(setup.model, data), log.series["link_origin"][k], atol=2e-3)


def test_a_recording_without_tf_restarts_mujoco_from_the_scenarios_start_pose(tmp_path):
    path, log = record(tmp_path / "bag", [], scenario="open-loop-flat-3d")
    rec = dataclasses.replace(read_recording(path), base=None)
    setup = mujoco_runtime.build(load_scenario("open-loop-flat-3d", [f"sim.duration={DURATION_S}"]))
    q, v = recorded_states_3d(setup, rec)
    data = mm.state_data(setup.model, q[0], v[0])
    np.testing.assert_allclose(mm.link_origins(setup.model, data)[0], log.series["link_origin"][0, 0], atol=1e-9)
    np.testing.assert_allclose(mm.link_rotations(setup.model, data)[0], log.series["link_rotation"][0, 0], atol=1e-9)
    np.testing.assert_array_equal(v[:, :6], 0.0)  # the base at rest


def test_calibration_recovers_the_recorded_values_on_mujoco(tmp_path):
    """The suite's MuJoCo bag at μ_c 0.9 and K_p 40, quantised and noisy, calibrated from the scenario's defaults
    (one polish, to keep it cheap): both values back within TOLERANCE_3D, K_p's profile interval holding the truth;
    the side friction of a world without boxes is not identifiable. (Two windows are too few for the profile to
    certify μ_c: its threshold is F(1, 1)'s 0.95 quantile, 161 σ²; measured 0.863, the profile flat under it.)"""
    bag = record(tmp_path / "bag", [f"{k}={v}" for k, v in TRUTH_3D.items()], NOISE, scenario="open-loop-flat-3d",
                 duration=DURATION_3D_S)[0]
    spec = Calibration("open-loop-flat-3d", bag, parse_fits(FITS_3D, ["robot.motor_kp"]),
                       (f"sim.duration={DURATION_3D_S}",), WINDOW_3D_S)
    outcome = calibrate(spec, tmp_path / "o", TRIALS_3D, workers=1, progress=False, seed=SEED, restarts=1)
    fitted = {f.key: f for f in outcome.fitted}
    for key, truth in TRUTH_3D.items():
        assert fitted[key].value == pytest.approx(truth, rel=TOLERANCE_3D), key
    kp = fitted["robot.motor_kp"]
    assert kp.identifiable and kp.interval[0] < TRUTH_3D["robot.motor_kp"] < kp.interval[1]
    side = fitted["world.side_friction"]
    assert not side.identifiable and side.profile is None  # its Jacobian column is flat: frozen before any profile
    assert outcome.loss <= outcome.loss_start


def test_a_recording_without_tf_rests_the_vertical_body_on_the_ground(tmp_path):
    """Without /tf (a robot's own bag) the tail link's angle and height come from the joint angles: the body resting
    on its hull edge under the centre of mass; on pedal-wave's run they follow the simulated ones."""
    path, log = record(tmp_path / "bag", [])
    rec = dataclasses.replace(read_recording(path), base=None)
    setup = build(load_scenario("pedal-wave", [f"sim.duration={DURATION_S}"]))
    q, _ = recorded_states(setup, rec)
    theta_1 = np.array([link_angles(setup.model, qi)[0] for qi in q])
    rms = float(np.sqrt(np.mean((theta_1 - log.link_angle[:, 0]) ** 2)))
    assert rms < 0.03  # measured 0.020 rad, over a swing of 0.89 rad
    assert rms < 0.1 * np.sqrt(np.mean(log.link_angle[:, 0] ** 2))  # the tail link held level: 10 times worse
    z = np.array([link_positions(setup.model, qi)[1] for qi in q])
    # [m] measured 5.9 mm, links lifted by up to 4 cm: the estimate rests the body at its start height, the run sinks
    # into the soft ground by a few mm
    assert np.sqrt(np.mean((z - log.link_position[:, :, 2]) ** 2)) < 0.01
