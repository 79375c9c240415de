"""002's two robots: its simulation ran Table 5.1's parameters (config/robots/koopaee6_sim.yaml), its experiments the
robot as built (koopaee6.yaml). Every scenario and reproduction run of a result of 002's simulation runs the first,
every one of a result of its robot the second (docs/readings.md "002 Table 5.1")."""

import xml.etree.ElementTree as ET

import mujoco
import numpy as np

from snake_core import locator
from snake_core.robot import load_robot
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.dart.runtime import build as build_dart
from snake_sim.engines.mujoco.runtime import build as build_mujoco
from snake_sim.engines.vertical.runtime import run_scenario
from snake_studies.reproduction.experiments import pedal_wave, stiffness

SIMULATED, BUILT = "koopaee6_sim", "koopaee6"


def _robot(scenario: str, overrides: tuple[str, ...] = ()) -> str:
    return load_scenario(scenario, list(overrides)).section("robot")["name"]


def test_002s_simulated_runs_name_table_5_1s_robot_and_its_robot_runs_the_robot_as_built():
    """002 §5.3 (Table 5.2's S column: pedal-wave) and §7.3 (sim73-*) are simulations; §6.4 and §7.4 (exp64-*,
    exp74-*) are the robot's trials, in 2-D and in 3-D alike."""
    names = locator.scenario_names()
    simulated = ["pedal-wave", *(n for n in names if n.startswith("sim"))]
    robot = [n for n in names if n.startswith("exp")]
    assert len(simulated) >= 5 and len(robot) >= 14  # pedal-wave, sim73 x 2 x (2-D, 3-D); exp64, exp74
    assert {n: _robot(n) for n in simulated} == dict.fromkeys(simulated, SIMULATED)
    assert {n: _robot(n) for n in robot} == dict.fromkeys(robot, BUILT)


def test_the_pedal_wave_section_compares_the_vertical_model_with_s_on_table_5_1s_robot_and_3d_with_e_as_built():
    cells = pedal_wave.plan(fast=False)
    engines = tuple(pedal_wave.ENGINES_3D)
    by_robot = {key: _robot(c.scenario, c.overrides) for key, c in cells.items()}
    assert {k: r for k, r in by_robot.items() if k.startswith(engines)} == \
        {k: BUILT for k in by_robot if k.startswith(engines)}
    assert {k: r for k, r in by_robot.items() if not k.startswith(engines)} == \
        {k: SIMULATED for k in by_robot if not k.startswith(engines)}


def test_the_stiffness_section_runs_table_7_1s_rows_on_table_5_1s_robot_and_the_shipped_rows_as_built():
    setting = stiffness._setting()
    assert (setting.simulated_robot, setting.robot) == (SIMULATED, BUILT)
    jobs = stiffness._jobs(setting, fast=False)
    table_7_1 = {label: _robot(s, o) for _, label, s, o in jobs if "Table 7.1" in label}
    shipped = {label: _robot(s, o) for _, label, s, o in jobs if "Table 7.1" not in label}
    assert len(table_7_1) == 3 and set(table_7_1.values()) == {SIMULATED}  # flat ground and the obstacle alike
    assert set(shipped.values()) == {BUILT}
    on_obstacle = {s for g, label, s, _ in jobs if g == "t71"}
    assert on_obstacle == {stiffness.SIMULATED_OPEN, stiffness.SIMULATED_TSC}  # 002 §7.3's own scenarios


def test_without_its_limit_alpha_passes_60_degrees_which_the_robot_as_built_holds():
    """The pedal wave at 002's largest A = π/3 asks β for ±60°; the SEA's deflection adds to it. The robot as built
    holds α at its ±60° (a stiff spring: within a degree); 002's simulated robot has no limit on α (Table 5.1), so
    α passes 60° by the deflection."""
    peak = {}
    for robot in (BUILT, SIMULATED):
        log = run_scenario(load_scenario("pedal-wave", [f"robot.name={robot}", "gait.amplitude=pi/3",
                                                        "sim.duration=3"]))
        peak[robot] = np.degrees(np.abs(log.alpha).max())
    assert peak[BUILT] < 61.0 < 62.0 < peak[SIMULATED]


def test_mujoco_builds_002s_simulated_robot_without_the_line_and_the_limit_on_alpha():
    """In MuJoCo the simulated robot's motor PD is unclamped (no force range, no line damping on the motor hinge), no
    tendon limits α and its links carry J_l about every axis; the robot as built keeps all three. Both step."""
    for robot, built in ((SIMULATED, False), (BUILT, True)):
        setup = build_mujoco(load_scenario("sim73-open-loop-obstacle-3d", [f"robot.name={robot}"]))
        root = ET.fromstring(setup.model.xml)
        motors = [j for j in root.iter("joint") if j.get("name", "").startswith("motor_")]
        assert len(motors) == 5 and all((float(j.get("damping")) > 0.0) == built for j in motors)
        assert all(("forcerange" in a.attrib) == built for a in root.find("actuator"))
        assert (root.find("tendon") is not None) == built
        links = [b.find("inertial") for b in root.iter("body") if b.get("name", "").startswith("link_")]
        assert {tuple(float(v) for v in i.get("diaginertia").split()) for i in links} == \
            {load_robot(robot).inertia_tensor}
        m = mujoco.MjModel.from_xml_string(setup.model.xml)
        d = mujoco.MjData(m)
        mujoco.mj_step(m, d, 50)
        assert np.isfinite(d.qpos).all() and m.ntendon == (5 if built else 0)
    assert load_robot(SIMULATED).inertia_tensor == (1.52e-5,) * 3


def test_dart_builds_002s_simulated_robot():
    setup = build_dart(load_scenario("sim73-tsc-obstacle-3d", ["model=dart"]))
    assert setup.robot.name == SIMULATED
