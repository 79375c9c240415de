"""A recording made through the CAN bridge calibrates the vertical model: the emulated modules on the simulated body
(at values away from the robot file's), driven by the suite's gait and SEA controllers through the bridge's command
(as ros2_control's topic hardware writes it), the joint states the bridge publishes on its topic written to a rosbag2
with the suite's writer, read back by ``snake-sim calibrate``'s reader, and the values recovered; /joint_states as
ros2_control's joint_state_broadcaster republishes them (the URDF's joints) reads the same."""

from __future__ import annotations

import numpy as np
import pytest

from snake_core.interface import CAN_BRIDGE_JOINT_STATES, JOINT_STATES, JointStateLayout, motor_names, spring_names
from snake_core.validation import ConfigError
from snake_hardware.bridge import CanBridge
from snake_sim.core.scenario import load_scenario
from snake_sim.core.sea_loop import motor_commands, sea_control
from snake_sim.outputs.recording import write_joint_states
from snake_sim_ros.body_plant import BodyPlant
from snake_studies.calibrate import Calibration, calibrate, parse_fits, read_recording

#: One Dask LocalCluster at a time: the cluster tests run one after the other on one pytest-xdist worker.
pytestmark = pytest.mark.xdist_group("dask_cluster")

#: The body's true values, away from the robot file's (koopaee6: K_p 60 N·m/rad) and the scenario's (μ_c 0.6).
TRUTH = {"contact.friction": 0.9, "robot.motor_kp": 40.0}
#: The controllers' and the bridge's rate [Hz] (the scenario's control rate, 100 Hz).
RATE = 100.0
#: The gait runs this long before the recording starts [s]: its first period starts from rest with a step in α_d,
#: which the driver slews at the servo's speed (the simulator does not); a lab records the gait under way too.
LEAD_S = 1.0
#: Recorded seconds (two windows of 1 s).
DURATION_S = 2.0
#: The calibration's scenario: pedal-wave on the robot as built, at the bridge's rate.
SETS = ("robot.name=koopaee6", f"sim.control_rate={RATE:g}", f"sim.duration={DURATION_S}")
#: The recording starts LEAD_S into the gait: its delay behind the gait's clock is about −LEAD_S, less the bus's
#: latency, fitted with the rest.
FITS = ["contact.friction=0.2:1.5", "robot.motor_kp=20:160", f"recording.delay={-LEAD_S - 0.05}:{-LEAD_S + 0.05}"]
#: Relative error of each recovered value. Measured over four searches of 20 trials (seeds 1-3, and one with a
#: delay box of ±0.03 s): μ_c 0.810-0.950 (within 10 %), K_p 39.0-43.2 (within 8 %), the delay −0.9723 to −0.9729 s
#: (the bus's 27 ms: a command period, a STATE period and the firmware's tick). The bridge's path (12-bit encoders,
#: the firmware's filtered α̇, the driver's slew at the servo's speed, the body's pose estimated from the joint
#: angles: the bridge publishes no /tf) leaves a loss of 2e-4 at the optimum.
TOLERANCE = {"contact.friction": 0.15, "robot.motor_kp": 0.12}
SEED = 1


def record_through_the_bridge(rig, path, truth: dict[str, float]):
    """Drive the emulated modules on a body at ``truth`` with pedal-wave's gait and SEA controllers through the
    bridge: every cycle the bridge's joint states in, the controllers' β_d, β̇_d out by ``motor_j`` name; the
    joint states from LEAD_S on written to ``path`` on the bridge's topic. Returns the bag and the bridge's joint
    states."""
    r = rig(rate=RATE, body=BodyPlant("koopaee6", overrides=[f"{k}={v}" for k, v in truth.items()]))
    bridge = CanBridge(r.driver)
    r.start()
    gait, controllers = sea_control(load_scenario("pedal-wave", list(SETS)), r.robot)
    layout = JointStateLayout(r.robot.n_joints, sea=True)
    t0, rows = r.t, []
    for _ in range(round((LEAD_S + DURATION_S) * RATE) + 1):
        js = bridge.step(r.t)
        t = r.t - t0
        if t >= LEAD_S - 1e-9:
            rows.append((t, js))
        m = layout.read(js.name, js.position, js.velocity, js.effort)
        alpha_d, alpha_d_dot = gait.reference(t)
        beta_d, beta_d_dot = motor_commands(controllers, t, r.dt, m.alpha, m.alpha_dot, m.beta, m.tau, alpha_d,
                                            alpha_d_dot)
        bridge.on_named_command(layout.names, list(beta_d), list(beta_d_dot), r.t)
        r.t += r.dt
        r.emu.advance(r.t)
    assert not r.driver.faults
    t = np.array([t for t, _ in rows])
    fields = (np.array([getattr(js, f) for _, js in rows]) for f in ("position", "velocity", "effort"))
    return write_joint_states(path, t, rows[0][1].name, *fields, topic=CAN_BRIDGE_JOINT_STATES), rows


@pytest.fixture
def recorded(rig, tmp_path):
    return record_through_the_bridge(rig, tmp_path / "bag", TRUTH)


@pytest.mark.parametrize("profile", ["classic"])
def test_a_bag_of_the_bridges_joint_states_reads_as_the_bridge_published_them(recorded):
    """The bridge's names are the suite's one layout (joint_j, motor_j, spring_j): the reader takes α, α̇, β."""
    bag, rows = recorded
    rec = read_recording(bag)
    names = rows[0][1].name
    assert sorted(names) == sorted(JointStateLayout(5, sea=True).names)
    np.testing.assert_allclose(rec.t, [t - rows[0][0] for t, _ in rows], atol=1e-9)
    for prefix, values in (("joint", rec.alpha), ("motor", rec.beta)):
        columns = [names.index(f"{prefix}_{j}") for j in range(1, 6)]
        np.testing.assert_array_equal(values, [np.asarray(js.position)[columns] for _, js in rows])
    np.testing.assert_array_equal(rec.alpha_dot, [np.asarray(js.velocity)[[names.index(f"joint_{j}")
                                                                          for j in range(1, 6)]] for _, js in rows])
    assert rec.base is None  # no /tf: the body's pose is estimated from its joint angles


@pytest.mark.parametrize("profile", ["classic"])
def test_joint_states_of_the_urdfs_joints_alone_read_as_the_bridges(recorded, tmp_path):
    """On the robot, /joint_states is joint_state_broadcaster's: motor_j (β, β̇) and spring_j (α − β, α̇ − β̇) only,
    the joints of the URDF's ros2_control block; α = β + (α − β) reads as the bridge's own α."""
    bag, rows = recorded
    names = rows[0][1].name
    urdf = motor_names(5) + spring_names(5)
    columns = [names.index(n) for n in urdf]
    fields = (np.array([np.asarray(getattr(js, f))[columns] for _, js in rows]) for f in ("position", "velocity",
                                                                                         "effort"))
    broadcast = write_joint_states(tmp_path / "broadcast", np.array([t for t, _ in rows]), urdf, *fields,
                                   topic=JOINT_STATES)
    bridge, robot = read_recording(bag), read_recording(broadcast)
    np.testing.assert_array_equal(robot.beta, bridge.beta)
    np.testing.assert_allclose(robot.alpha, bridge.alpha, atol=1e-12)
    np.testing.assert_allclose(robot.alpha_dot, bridge.alpha_dot, atol=1e-12)


@pytest.mark.parametrize("profile", ["classic"])
def test_calibration_recovers_the_bodys_values_from_a_recording_through_the_bridge(recorded, tmp_path):
    """One polish, to keep it cheap. Two windows are too few for the profile intervals to certify μ_c and K_p (their
    threshold is F(1, 1)'s 0.95 quantile, 161 σ²): the values are checked against the truth; the delay, which moves
    every sample, is identifiable."""
    bag, _ = recorded
    spec = Calibration("pedal-wave", bag, parse_fits(FITS, ["robot.motor_kp"]), SETS)
    outcome = calibrate(spec, tmp_path / "o", 20, workers=1, progress=False, seed=SEED, restarts=1)
    fitted = {f.key: f for f in outcome.fitted}
    for key, truth in TRUTH.items():
        assert fitted[key].value == pytest.approx(truth, rel=TOLERANCE[key]), key
    delay = fitted["recording.delay"]
    assert delay.identifiable and -LEAD_S < delay.value < -LEAD_S + 0.05  # the recording lags the gait by the bus


def test_the_body_plant_takes_validated_scenario_overrides():
    plain, changed = BodyPlant("koopaee6"), BodyPlant("koopaee6", overrides=["contact.friction=0.9",
                                                                             "robot.motor_kp=40"])
    assert plain.plant.pd.kp == 60.0 and changed.plant.pd.kp == 40.0
    assert changed.plant.contact.friction == 0.9 != plain.plant.contact.friction
    with pytest.raises(ConfigError, match=r"contact\.frictio"):
        BodyPlant("koopaee6", overrides=["contact.frictio=0.9"])
    with pytest.raises(ConfigError, match=r"robot\.motor_kp"):
        BodyPlant("koopaee6", overrides=["robot.motor_kp=0"])
