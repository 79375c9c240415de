"""The robot description (urdf/snake.urdf.xacro) carries the robot file's numbers, for every robot
file and every hardware back end; Pinocchio, check_urdf and libsdformat read it; its kinematics are
snake_core's (002 (4.2)–(4.17))."""

from __future__ import annotations

import math
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
import xacro
import yaml

from snake_core import locator
from snake_core.robot import load_robot
from snake_sim.core import worldgen
from snake_sim.core.world import load_world


def _vertical():
    """snake_core.vertical (002's model), imported where used."""
    import snake_core.vertical as vertical
    return vertical

ROBOTS = locator.robot_names()
HARDWARE = ("mock", "gazebo", "real")
HW_PLUGIN = {"mock": "mock_components/GenericSystem", "gazebo": "gz_ros2_control/GazeboSimSystem",
             "real": "joint_state_topic_hardware_interface/JointStateTopicSystem"}


def _joints(root: ET.Element) -> dict[str, ET.Element]:
    return {j.get("name"): j for j in root.findall("joint")}


def _pin_model(urdf: str) -> pin.Model:
    return pin.buildModelFromXML(urdf, pin.JointModelFreeFlyer())


def _expected_total_mass(name: str | Path) -> float:
    """N m_l + (N−1) m_r: the rotors are point masses at the joints (002 (4.11)–(4.12))."""
    r = load_robot(name)
    return r.total_mass + (r.n_joints * r.actuator.rotor_mass if r.actuator is not None else 0.0)


@pytest.mark.parametrize("hardware", HARDWARE)
@pytest.mark.parametrize("robot", ROBOTS)
def test_every_robot_and_back_end_gives_a_urdf_check_urdf_and_pinocchio_accept(robot, hardware, make_urdf, tmp_path):
    urdf = make_urdf(robot, hardware=hardware)
    r = load_robot(robot)
    model = _pin_model(urdf)
    n_rev = 2 * r.n_joints if r.sea is not None else r.n_joints
    assert model.njoints == 2 + n_rev  # universe + free flyer + revolute joints
    assert sum(model.inertias[i].mass for i in range(model.njoints)) == pytest.approx(_expected_total_mass(robot),
                                                                                     rel=1e-12)
    root = ET.fromstring(urdf)
    assert root.findtext("ros2_control/hardware/plugin") == HW_PLUGIN[hardware]
    if shutil.which("check_urdf") is None:
        pytest.skip("check_urdf (liburdfdom-tools) not installed")
    path = tmp_path / f"{robot}_{hardware}.urdf"
    path.write_text(urdf)
    out = subprocess.run(["check_urdf", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Successfully Parsed XML" in out.stdout
    assert "root Link: link_1" in out.stdout


@pytest.mark.parametrize("robot", ROBOTS)
def test_links_joints_and_limits_equal_the_robot_file(robot, make_urdf):
    r = load_robot(robot)
    model = _pin_model(make_urdf(robot))
    names = list(model.names)
    for i in range(1, r.n_links + 1):  # link i hangs on the free flyer (i = 1) or on spring_{i−1}/joint_{i−1}
        parent = "root_joint" if i == 1 else (f"spring_{i - 1}" if r.sea is not None else f"joint_{i - 1}")
        inertia = model.inertias[names.index(parent)]
        assert inertia.mass == pytest.approx(r.link_mass, rel=1e-12)
        assert np.allclose(inertia.inertia, np.diag(r.inertia_tensor), rtol=1e-12, atol=0.0)
        assert np.allclose(inertia.lever, [r.half_length, 0, 0], atol=1e-15)
    for j in range(1, r.n_joints + 1):
        drive = names.index(f"motor_{j}" if r.sea is not None else f"joint_{j}")
        idx = model.joints[drive].idx_q
        assert model.lowerPositionLimit[idx] == pytest.approx(-r.joint_limit, rel=1e-12)
        assert model.upperPositionLimit[idx] == pytest.approx(r.joint_limit, rel=1e-12)
        assert model.effortLimit[model.joints[drive].idx_v] == pytest.approx(r.joint_effort_limit, rel=1e-12)
        assert model.velocityLimit[model.joints[drive].idx_v] == pytest.approx(r.joint_velocity_limit, rel=1e-12)
        if r.sea is not None:
            rotor = model.inertias[drive]
            assert rotor.mass == pytest.approx(r.actuator.rotor_mass, rel=1e-12)
            assert np.allclose(np.diag(rotor.inertia), r.actuator.rotor_term, rtol=1e-12)
            spring = model.joints[names.index(f"spring_{j}")]
            assert model.upperPositionLimit[spring.idx_q] == pytest.approx(r.sea.deflection_limit, rel=1e-12)


def test_total_mass_matches_the_vertical_model_including_rotors(make_urdf):
    """snake_core's vertical model counts the rotors as masses at the joints (002 (4.11), (4.19));
    RobotParams.total_mass is the links only; with the rotors it is 002 Table 3.2's total weight, 956 g."""
    model = _pin_model(make_urdf("koopaee6"))
    urdf_mass = sum(model.inertias[i].mass for i in range(model.njoints))
    assert urdf_mass == pytest.approx(_vertical().build_model(load_robot("koopaee6")).total_mass, rel=1e-12)
    assert urdf_mass == pytest.approx(0.956, abs=1e-6)


def test_rotor_inertia_follows_the_robot_files_reading_of_4_36(make_urdf, tmp_path):
    data = yaml.safe_load((locator.robot_file("koopaee6")).read_text())
    data["actuator"]["rotor_inertia_model"] = "reflected"
    path = tmp_path / "reflected.yaml"
    path.write_text(yaml.safe_dump(data))
    model = _pin_model(make_urdf(path))
    rotor = model.inertias[list(model.names).index("motor_1")]
    assert rotor.inertia[1, 1] == pytest.approx(256**2 * 2.45e-7, rel=1e-12)  # n² J_r ≈ 0.016 kg m²


@pytest.mark.parametrize("hardware", HARDWARE)
@pytest.mark.parametrize("robot", [r for r in ROBOTS if load_robot(r).sea is not None])
def test_description_carries_springs_friction_and_gazebo_damping_and_plugin_for_libsdformat(robot, hardware,
                                                                                            make_urdf, sdf_checker,
                                                                                            tmp_path):
    r = load_robot(robot)
    path = tmp_path / "snake.urdf"
    path.write_text(make_urdf(robot, hardware=hardware))
    rep = sdf_checker(path)
    gazebo = hardware == "gazebo"
    assert rep.returncode == 0 and not rep.errors, rep.errors
    for j in range(1, r.n_joints + 1):
        typ, parent, child, k, ref, damping, lower, upper, _ = rep.joints[f"spring_{j}"]
        assert (typ, parent, child) == ("revolute", f"rotor_{j}", f"link_{j + 1}")
        assert float(k) == pytest.approx(r.sea.stiffness[j - 1], rel=1e-12)  # τ = K (α − β), 002 (4.36)
        assert float(ref) == 0.0 and float(damping) == 0.0
        assert (float(lower), float(upper)) == pytest.approx((-r.sea.deflection_limit, r.sea.deflection_limit))
        motor = rep.joints[f"motor_{j}"]
        assert float(motor[3]) == 0.0  # the motor joint has no spring
        # D term of (4.39) as the motor joint's damping, integrated implicitly by Gazebo (only there)
        assert float(motor[5]) == pytest.approx(r.actuator.kd if gazebo else 0.0, rel=1e-12)
    plugins = {("gz_ros2_control-system", "gz_ros2_control::GazeboSimROS2ControlPlugin"),
               ("gz-sim-pose-publisher-system", "gz::sim::systems::PosePublisher")}
    assert set(rep.plugins) == (plugins if gazebo else set())
    mu = 0.6 if r.friction is None else r.friction.mu_t
    assert rep.friction["link_1"][:2] == pytest.approx((mu, 0.6 if r.friction is None else r.friction.mu_n))
    assert rep.friction["link_1"][2:] == (1.0, 0.0, 0.0)  # μ along the link's axis
    # masses as Gazebo sees them (libsdformat merges the massless head_tip frame into link_N)
    assert sum(v[0] for v in rep.links.values()) == pytest.approx(_expected_total_mass(robot), rel=1e-12)


def test_anisotropic_friction_follows_the_robot_file(make_urdf, sdf_checker, tmp_path):
    data = yaml.safe_load(locator.robot_file("koopaee6").read_text())
    data["friction"] = {"mu_t": 0.1, "mu_n": 0.9}  # wheeled / scaled links: slide along, grip across
    robot = tmp_path / "wheeled.yaml"
    robot.write_text(yaml.safe_dump(data))
    path = tmp_path / "wheeled.urdf"
    path.write_text(make_urdf(robot, hardware="gazebo"))
    rep = sdf_checker(path)
    assert rep.friction["link_3"] == pytest.approx((0.1, 0.9, 1.0, 0.0, 0.0))


@pytest.mark.parametrize("hardware", HARDWARE)
def test_ros2_control_interfaces_per_back_end(hardware, make_urdf):
    root = ET.fromstring(make_urdf("koopaee6", hardware=hardware))
    system = root.find("ros2_control")
    assert system.findtext("hardware/plugin") == HW_PLUGIN[hardware]
    joints = {j.get("name"): j for j in system.findall("joint")}
    # motors first: the topic hardware's command names every joint but fills positions for commanded ones only
    assert list(joints) == [f"motor_{j}" for j in range(1, 6)] + [f"spring_{j}" for j in range(1, 6)]
    command = "effort" if hardware == "gazebo" else "position"  # gz position commands are kinematic
    for j in range(1, 6):
        motor, spring = joints[f"motor_{j}"], joints[f"spring_{j}"]
        # mock/real: β_d and β̇_d, the two references of the modules' PD, 002 (4.39)
        assert [c.get("name") for c in motor.findall("command_interface")] == \
            (["effort"] if hardware == "gazebo" else ["position", "velocity"])
        assert [s.get("name") for s in motor.findall("state_interface")] == ["position", "velocity", "effort"]
        assert spring.findall("command_interface") == []  # the spring is passive
    # Gazebo's effort carries K_p (β_d − β) + K_D β̇_d (the D term is the joint damping): bounded within the limits
    limit = {"effort": 60.0 * 2 * math.radians(60.0) + 25.0 * 6.3, "position": math.radians(60.0)}[command]
    assert float(joints["motor_1"].find("command_interface/param[@name='max']").text) == pytest.approx(limit)
    params = {p.get("name"): p.text for p in system.findall("hardware/param")}
    if hardware == "real":
        assert params == {"joint_commands_topic": "/can_bridge/joint_commands",
                          "joint_states_topic": "/can_bridge/joint_states",
                          "trigger_joint_command_threshold": "-1"}
    else:
        assert params == {}


def test_rigid_robot_has_one_torque_driven_joint_per_joint(make_urdf):
    r = load_robot("ariizumi10")
    root = ET.fromstring(make_urdf("ariizumi10", hardware="gazebo"))
    assert sorted(_joints(root)) == sorted([f"joint_{j}" for j in range(1, r.n_joints + 1)] + ["head_tip_joint"])
    system = root.find("ros2_control")
    assert {c.get("name") for c in system.iter("command_interface")} == {"effort"}
    assert not [g for g in root.findall("gazebo") if g.find("springStiffness") is not None]


@pytest.mark.parametrize("robot", ROBOTS)
def test_controller_files_name_the_descriptions_joints(robot, make_urdf):
    folder = locator.data_dir() / "config" / "controllers"
    for hardware, suffix in (("mock", ""), ("real", ""), ("gazebo", "_gz")):
        path = folder / f"{robot}{suffix}.yaml"
        if not path.is_file():
            pytest.fail(f"{path} is missing: every robot file needs its ros2_control controllers")
        cfg = yaml.safe_load(path.read_text())
        system = ET.fromstring(make_urdf(robot, hardware=hardware)).find("ros2_control")
        commanded = [j.get("name") for j in system.findall("joint") if j.find("command_interface") is not None]
        interface = system.find("joint/command_interface").get("name")
        types = {k: v["type"] for k, v in cfg["controller_manager"]["ros__parameters"].items() if isinstance(v, dict)}
        assert types["joint_state_broadcaster"] == "joint_state_broadcaster/JointStateBroadcaster"
        fwd = "motor_position_controller" if load_robot(robot).sea is not None else "joint_effort_controller"
        assert types[fwd] == "forward_command_controller/ForwardCommandController"
        fwd_params = cfg[fwd]["ros__parameters"]
        if hardware == "gazebo" and load_robot(robot).sea is not None:
            pd = cfg["motor_pd_controller"]["ros__parameters"]
            assert types["motor_pd_controller"] == "pid_controller/PidController"
            assert pd["dof_names"] == commanded and pd["command_interface"] == interface == "effort"
            assert pd["reference_and_state_interfaces"] == ["position", "velocity"] and pd["enable_feedforward"]
            act = load_robot(robot).actuator
            for name in commanded:  # P and K_D β̇_d of (4.39) here, −K_D β̇ as the joint damping (Gazebo test above)
                assert pd["gains"][name] == {"p": act.kp, "i": 0.0, "d": 0.0, "feedforward_gain": act.kd}
                assert isinstance(pd["gains"][name]["p"], float)  # ROS double parameters refuse integers
            # chained: the forward command controllers write the PID's position (β_d) and velocity (β̇_d) references
            vel = cfg["motor_velocity_controller"]["ros__parameters"]
            assert types["motor_velocity_controller"] == "forward_command_controller/ForwardCommandController"
            assert fwd_params["joints"] == vel["joints"] == [f"motor_pd_controller/{n}" for n in commanded]
            assert (fwd_params["interface_name"], vel["interface_name"]) == ("position", "velocity")
        else:
            assert fwd_params["joints"] == commanded
            assert fwd_params["interface_name"] == interface
            if load_robot(robot).sea is not None:  # β̇_d to the motors' velocity command interface
                vel = cfg["motor_velocity_controller"]["ros__parameters"]
                assert (vel["joints"], vel["interface_name"]) == (commanded, "velocity")


def _random_sea_state(rng: np.random.Generator, n: int) -> np.ndarray:
    q = np.zeros(2 * n + 1)
    q[: n - 1] = rng.uniform(-math.pi / 3, math.pi / 3, n - 1)  # α
    q[n - 1] = rng.uniform(-math.pi, math.pi)  # θ_N
    q[n:n + 2] = rng.uniform(-1.0, 1.0, 2)  # p_x, p_z
    q[n + 2:] = q[: n - 1] + rng.uniform(-0.35, 0.35, n - 1)  # β = α − deflection
    return q


def _pin_configuration(model: pin.Model, vm, q: np.ndarray) -> np.ndarray:
    """Pinocchio configuration of snake_core's q: free flyer at the tail tip turned by θ_1 about −y,
    motor_j = β_j, spring_j = α_j − β_j."""
    n = vm.n_links
    pts_x, pts_z = _vertical().contact_points(vm, q)
    theta_1 = _vertical().link_angles(vm, q)[0]
    placement = pin.SE3(pin.utils.rotate("y", -theta_1), np.array([pts_x[n], 0.0, pts_z[n]]))  # tail tip
    qp = pin.neutral(model)
    qp[:7] = pin.SE3ToXYZQUAT(placement)
    names = list(model.names)
    for j in range(1, n):
        qp[model.joints[names.index(f"motor_{j}")].idx_q] = q[vm.i_beta][j - 1]
        qp[model.joints[names.index(f"spring_{j}")].idx_q] = q[vm.i_alpha][j - 1] - q[vm.i_beta][j - 1]
    return qp


def _check_kinematics_against_snake_core(urdf: str, robot, seed: int) -> None:
    v = _vertical()
    vm = v.build_model(robot)
    model = _pin_model(urdf)
    data = model.createData()
    names = list(model.names)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        q = _random_sea_state(rng, vm.n_links)
        pin.forwardKinematics(model, data, _pin_configuration(model, vm, q))
        pin.updateFramePlacements(model, data)
        lx, lz = v.link_positions(vm, q)  # 002 (4.2)–(4.5)
        rx, rz = v.rotor_positions(vm, q)  # 002 (4.11)–(4.14)
        cx, cz = v.contact_points(vm, q)
        for i in range(1, vm.n_links + 1):
            jid = names.index("root_joint" if i == 1 else f"spring_{i - 1}")
            com = data.oMi[jid].act(model.inertias[jid].lever)
            assert com == pytest.approx([lx[i - 1], 0.0, lz[i - 1]], abs=1e-9)
        for j in range(1, vm.n_links):
            rotor = data.oMi[names.index(f"motor_{j}")].translation
            assert rotor == pytest.approx([rx[j - 1], 0.0, rz[j - 1]], abs=1e-9)
        head = data.oMf[model.getFrameId("head_tip")]
        assert head.translation == pytest.approx([cx[-1], 0.0, cz[-1]], abs=1e-9)
        # the head link's absolute angle θ_N (from +x towards +z)
        xh = head.rotation[:, 0]
        assert math.atan2(xh[2], xh[0]) == pytest.approx(math.remainder(q[vm.i_theta], 2 * math.pi), abs=1e-9)


@pytest.mark.parametrize("robot", [r for r in ROBOTS if load_robot(r).sea is not None])
def test_link_side_kinematics_from_pinocchio_equal_snake_cores(robot, make_urdf):
    _check_kinematics_against_snake_core(make_urdf(robot), load_robot(robot), seed=5)


def _robot_variant(tmp_path: Path, n_links: int, link_length: float) -> Path:
    data = yaml.safe_load(locator.robot_file("koopaee6").read_text())
    data["name"] = f"variant{n_links}"
    data["links"]["count"] = n_links
    data["links"]["length"] = link_length
    data["can"]["module_ids"] = list(range(1, n_links))
    path = tmp_path / f"variant{n_links}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(("n_links", "link_length"), [(4, 0.09), (6, 0.0742), (10, 0.06)])
def test_changing_n_and_link_length_moves_urdf_simulator_and_worlds_together(n_links, link_length, make_urdf,
                                                                            tmp_path):
    path = _robot_variant(tmp_path, n_links, link_length)
    robot = load_robot(path)
    urdf = make_urdf(path)
    model = _pin_model(urdf)
    assert model.njoints == 2 + 2 * (n_links - 1)
    _check_kinematics_against_snake_core(urdf, robot, seed=n_links)
    # straight start pose: the head tip of the URDF, of the simulator and of the world generator agree
    v = _vertical()
    vm = v.build_model(robot)
    cx, _ = v.contact_points(vm, v.initial_configuration(vm))
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    head = data.oMf[model.getFrameId("head_tip")].translation[0]
    assert head == pytest.approx(n_links * link_length, abs=1e-12)
    assert cx[-1] == pytest.approx(head, abs=1e-12)
    assert worldgen.head_tip_x(path) == pytest.approx(head, abs=1e-12)
    world = tmp_path / "two_obstacles.sdf"
    world.write_text(worldgen.two_obstacles_world(robot=path))
    first = min(load_world(world).static_boxes, key=lambda b: b.x_min)
    assert first.x_min - head == pytest.approx(worldgen.TWO_OBSTACLES_START_GAP, abs=1e-9)


@pytest.mark.parametrize(("roll", "axes"), [("0", ["0 1 0"] * 5), ("90", ["0 0 -1"] * 5),
                                             ("alternate", ["0 1 0", "0 0 -1", "0 1 0", "0 0 -1", "0 1 0"]),
                                             ("0 90 90 0 0", ["0 1 0", "0 0 -1", "0 0 -1", "0 1 0", "0 1 0"])])
def test_joint_roll_turns_joint_axes_between_pitch_and_yaw(roll, axes, make_urdf):
    joints = _joints(ET.fromstring(make_urdf("koopaee6", joint_roll=roll)))
    for kind in ("motor", "spring"):
        got = [[float(v) for v in joints[f"{kind}_{j}"].find("axis").get("xyz").split()] for j in range(1, 6)]
        assert got == [[float(v) for v in a.split()] for a in axes]


def test_joint_twist_turns_each_axis_about_the_link_and_com_offset_moves_the_centres_of_mass(make_urdf):
    """joint_twist ψ_j [deg]: R_x(ψ_j) (0, 1, 0) for a pitch joint, R_x(ψ_j) (0, 0, −1) for a yaw joint (right hand
    about the link's x); com_offset: every link's centre of mass at (l + dx, dy, dz)."""
    root = ET.fromstring(make_urdf("koopaee6", joint_roll="alternate", joint_twist="30 -20 0 0 90",
                                   com_offset="0.004 -0.003 0.01"))
    joints = _joints(root)
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    axis = {j: [float(v) for v in joints[f"motor_{j}"].find("axis").get("xyz").split()] for j in (1, 2, 5)}
    assert axis[1] == pytest.approx([0.0, c, s], abs=1e-12)
    assert axis[2] == pytest.approx([0.0, -math.sin(math.radians(20)), -math.cos(math.radians(20))], abs=1e-12)
    assert axis[5] == pytest.approx([0.0, 0.0, 1.0], abs=1e-12)
    half = 0.5 * load_robot("koopaee6").link_length
    for link in root.iter("link"):
        if link.get("name").startswith("link_"):
            xyz = [float(v) for v in link.find("inertial/origin").get("xyz").split()]
            assert xyz == pytest.approx([half + 0.004, -0.003, 0.01], abs=1e-15)


def _broken(tmp_path: Path, edit) -> Path:
    data = yaml.safe_load(locator.robot_file("koopaee6").read_text())
    edit(data)
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["links"].pop("mass"), r"broken\.yaml: links\.mass = missing is invalid: is required"),
    (lambda d: d["links"].update(mass=-0.15), r"links\.mass = -0\.15 is invalid: must be > 0"),
    (lambda d: d["links"].update(count=1), r"links\.count = 1 is invalid: must be an integer >= 2"),
    (lambda d: d["links"].update(length="long"), r"links\.length = 'long' is invalid: must be a finite number > 0"),
    (lambda d: d["sea"].update(stiffness=0.0), r"sea\.stiffness = 0\.0 is invalid: must be > 0"),
    (lambda d: d["sea"].update(stiffness=[1.74, 1.74]),
     r"sea\.stiffness = \[1\.74, 1\.74\] is invalid: must be a number or a list of 5 numbers"),
    (lambda d: d["sea"].update(deflection_limit_deg=95.0),
     r"sea\.deflection_limit_deg = 95\.0 is invalid: must be in \(0, 90\]"),
    (lambda d: d["joints"].update(limit_deg=float("nan")), r"joints\.limit_deg = nan is invalid"),
    (lambda d: d["actuator"].update(rotor_inertia_model="big"),
     r"actuator\.rotor_inertia_model = 'big' is invalid: must be one of own, reflected"),
    (lambda d: d.pop("actuator"), r"actuator = missing is invalid: is required when sea is given"),
    (lambda d: d["links"].update(colour="red"), r"links\.colour = 'red' is invalid: unknown field"),
])
def test_bad_robot_file_fails_the_xacro_run_naming_the_field(edit, message, make_urdf, tmp_path):
    with pytest.raises(xacro.XacroException, match=message):
        make_urdf(_broken(tmp_path, edit))


def test_the_same_bad_files_are_refused_by_snake_core_with_the_same_field(tmp_path):
    """xacro and snake_core.robot validate alike (one message per field)."""
    from snake_core.validation import ConfigError
    path = _broken(tmp_path, lambda d: d["links"].update(mass=-0.15))
    with pytest.raises(ConfigError, match=r"links\.mass = -0\.15 is invalid: must be > 0"):
        load_robot(path)


def test_unknown_robot_name_fails_naming_the_robot_file(make_urdf):
    with pytest.raises(xacro.XacroException, match=r"No such file or directory: .*config/robots/moon\.yaml"):
        make_urdf("moon")


@pytest.mark.parametrize(("arg", "value", "message"), [
    ("hardware", "sim", r"hardware = 'sim' is invalid: must be one of mock, gazebo, mujoco, real"),
    ("joint_roll", "45", r"joint_roll = '45' is invalid: must be 0, 90, alternate or a list of 5 values"),
    ("joint_roll", "0 90", r"joint_roll = '0 90' is invalid"),
    ("mu", "-1", r"mu = '-1' is invalid: must be a number >= 0"),
    ("joint_twist", "95", r"joint_twist = '95' is invalid: must be an angle in degrees within \[-90, 90\]"),
    ("joint_twist", "1 2", r"joint_twist = '1 2' is invalid: must be an angle .* or a list of 5"),
    ("com_offset", "0 0.05 0", r"com_offset = '0 0.05 0' is invalid: must be three numbers dx dy dz \[m\] inside"),
    ("com_offset", "0 x 0", r"com_offset = '0 x 0' is invalid"),
    ("mujoco_headless", "yes", r"mujoco_headless = 'yes' is invalid: must be true or false"),
    ("mujoco_speed", "0", r"mujoco_speed = '0' is invalid: must be a number > 0"),
])
def test_bad_xacro_argument_fails_naming_it(arg, value, message, make_urdf):
    with pytest.raises(xacro.XacroException, match=message):
        make_urdf("koopaee6", **{arg: value})


def test_module_mesh_is_a_unit_regular_octagonal_prism():
    """002 §3.4: octagonal cross-section; scaled to (2l, width, width) in the URDF."""
    data = (locator.description_dir() / "urdf" / "meshes" / "octagonal_module.stl").read_bytes()  # binary STL (MuJoCo)
    facets = np.frombuffer(data, np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]), offset=84)
    vertices = facets["v"].reshape(-1, 3).astype(float)
    assert len(vertices) == 3 * 28  # 8 sides × 2 + 2 caps × 6 triangles
    assert set(np.round(vertices[:, 0], 12)) == {0.0, 1.0}
    angles = np.sort(np.unique(np.round(np.degrees(np.arctan2(vertices[:, 2], vertices[:, 1])) % 360, 9)))
    assert angles == pytest.approx(22.5 + 45.0 * np.arange(8))
    assert np.hypot(vertices[:, 1], vertices[:, 2]) == pytest.approx(0.5 / math.cos(math.pi / 8))
    assert vertices[:, 2].min() == pytest.approx(-0.5)  # a flat belly, 1 across flats


def test_gazebo_needs_the_controllers_file_and_gets_it_as_an_absolute_path(make_urdf, tmp_path, monkeypatch):
    """The description does not know snake_bringup's files: hardware:=gazebo names its ros2_control parameters
    (sim.launch.py: the share's config/controllers/<robot>_gz.yaml); a relative name is the working folder's."""
    with pytest.raises(xacro.XacroException, match=r"controllers_file = '' is invalid: hardware:=gazebo needs .*"
                                                   r"config/controllers/koopaee6_gz\.yaml"):
        make_urdf("koopaee6", hardware="gazebo", controllers_file="")
    monkeypatch.chdir(tmp_path)
    root = ET.fromstring(make_urdf("koopaee6", hardware="gazebo", controllers_file="gz.yaml"))
    assert root.find("gazebo/plugin/parameters").text == str(tmp_path / "gz.yaml")
    root = ET.fromstring(make_urdf("koopaee6", hardware="mock"))
    assert root.find("gazebo/plugin/parameters") is None


def _velocity_map(model: pin.Model, vm, q: np.ndarray) -> np.ndarray:
    """J with v_pin = J q̇ for snake_core's q = [α, θ_N, p_x, p_z, β]: the free flyer's twist (in the
    tail link's frame) from the tail-tip velocity and θ̇_1, motor_j = β̇_j, spring_j = α̇_j − β̇_j."""
    v = _vertical()
    n = vm.n_links
    Jx, Jz = v.point_jacobians(vm, q)  # rows: N link centres, then the tail tip (row N), …
    theta_1 = v.link_angles(vm, q)[0]
    R = pin.utils.rotate("y", -theta_1)
    J = np.zeros((model.nv, vm.n_q))
    J[0:3] = R.T @ np.vstack([Jx[n], np.zeros(vm.n_q), Jz[n]])
    J[4, :n] = -vm.T[0]  # ω_y of link 1 = −θ̇_1 (θ counted from +x towards +z)
    names = list(model.names)
    for j in range(1, n):
        J[model.joints[names.index(f"motor_{j}")].idx_v, vm.i_beta.start + j - 1] = 1.0
        J[model.joints[names.index(f"spring_{j}")].idx_v, j - 1] = 1.0
        J[model.joints[names.index(f"spring_{j}")].idx_v, vm.i_beta.start + j - 1] = -1.0
    return J


@pytest.mark.parametrize("reading", ["own", "reflected"])
def test_urdf_inertia_equals_snake_cores_mass_matrix_plus_the_rotor_terms_4_36_drops(reading, make_urdf, tmp_path):
    """Pinocchio's CRBA of the URDF, mapped to 002's coordinates, is 𝕄 of (4.35) as snake_core builds
    it, plus exactly the rotor coupling 𝕊_1, 𝕊_2 that the reading "the rotor's angular velocity is only
    its own" (4.36) drops: the URDF rotor turns at θ̇_j − β̇_j, snake_core's at β̇_j."""
    data = yaml.safe_load(locator.robot_file("koopaee6").read_text())
    data["actuator"]["rotor_inertia_model"] = reading
    data["links"].pop("inertia_tensor")  # the URDF's links with the vertical model's planar J_l
    path = tmp_path / f"{reading}.yaml"
    path.write_text(yaml.safe_dump(data))
    robot = load_robot(path)
    v = _vertical()
    vm = v.build_model(robot)
    model = _pin_model(make_urdf(path))
    pdata = model.createData()
    rng = np.random.default_rng(11)
    for _ in range(5):
        q = _random_sea_state(rng, vm.n_links)
        J = _velocity_map(model, vm, q)
        M_urdf = J.T @ pin.crba(model, pdata, _pin_configuration(model, vm, q)) @ J
        M_urdf = 0.5 * (M_urdf + M_urdf.T)
        dropped = np.zeros_like(M_urdf)
        for j in range(vm.n_joints):  # ½ 𝕊_3 [(θ̇_j − β̇_j)² − β̇_j²] = ½ 𝕊_3 (θ̇_j² − 2 θ̇_j β̇_j)
            t = np.zeros(vm.n_q)
            t[: vm.n_links] = vm.T[j]
            b = np.zeros(vm.n_q)
            b[vm.i_beta.start + j] = 1.0
            dropped += vm.rotor_term * (np.outer(t, t) - np.outer(t, b) - np.outer(b, t))
        M_core = v.mass_matrix(vm, q)
        tol = 1e-12 * np.abs(M_core).max()
        assert M_urdf == pytest.approx(M_core + dropped, abs=tol)
        assert M_urdf != pytest.approx(M_core, abs=tol)  # the dropped terms are resolved by this check


def _rigid_link_centres(model: pin.Model, data: pin.Data, root: pin.SE3, alpha: np.ndarray) -> np.ndarray:
    """World centres of mass of link_1 … link_N of a rigid-joint URDF, joint_j = α_j."""
    names = list(model.names)
    qp = pin.neutral(model)
    qp[:7] = pin.SE3ToXYZQUAT(root)
    for j, a in enumerate(alpha, start=1):
        qp[model.joints[names.index(f"joint_{j}")].idx_q] = a
    pin.forwardKinematics(model, data, qp)
    ids = [names.index("root_joint" if i == 1 else f"joint_{i - 1}") for i in range(1, len(alpha) + 2)]
    return np.array([data.oMi[i].act(model.inertias[i].lever) for i in ids])


def test_horizontal_robot_with_yaw_joints_matches_snake_cores_planar_kinematics(make_urdf):
    """ariizumi10 with joint_roll:=90 (004, horizontal plane): link centres from Pinocchio equal
    snake_core.planar's (004 (3)) through the suite convention, q(joint_j) = α_j."""
    from snake_core.planar.convention import links_to_world, q_from_world
    from snake_core.planar.model import build_model as build_planar_model
    from snake_core.planar.model import link_angles as planar_angles
    from snake_core.planar.model import link_positions as planar_positions

    robot = load_robot("ariizumi10")
    pm = build_planar_model(robot)
    model = _pin_model(make_urdf("ariizumi10", joint_roll="90"))
    data = model.createData()
    rng = np.random.default_rng(3)
    for _ in range(20):
        alpha = rng.uniform(-robot.joint_limit, robot.joint_limit, robot.n_joints)
        q = q_from_world(rng.uniform(-1, 1, 2), rng.uniform(-math.pi, math.pi), alpha)
        centres, theta = links_to_world(planar_positions(pm, q), planar_angles(pm, q))
        tail = centres[0] - robot.half_length * np.array([math.cos(theta[0]), math.sin(theta[0])])
        root = pin.SE3(pin.utils.rotate("z", theta[0]), np.array([tail[0], tail[1], 0.0]))
        ours = _rigid_link_centres(model, data, root, alpha)
        assert ours[:, :2] == pytest.approx(centres, abs=1e-9)
        assert ours[:, 2] == pytest.approx(0.0, abs=1e-12)


def test_vertical_rigid_robot_matches_snake_cores_rectilinear_body_shape(make_urdf):
    """rectilinear6 (003, vertical plane, rigid joints): joint positions from Pinocchio equal the
    body points of snake_core.rectilinear (α_j = θ_j − θ_{j+1}, tail link flat at the origin)."""
    from snake_core.rectilinear.cycle import body_points

    robot = load_robot("rectilinear6")
    model = _pin_model(make_urdf("rectilinear6"))
    data = model.createData()
    names = list(model.names)
    rng = np.random.default_rng(4)
    for _ in range(20):
        alpha = rng.uniform(-robot.joint_limit, robot.joint_limit, robot.n_joints)
        _rigid_link_centres(model, data, pin.SE3.Identity(), alpha)
        pin.updateFramePlacements(model, data)
        ends = [data.oMi[names.index(f"joint_{j}")].translation for j in range(1, robot.n_joints + 1)]
        ends = np.array([[0.0, 0.0, 0.0], *ends, data.oMf[model.getFrameId("head_tip")].translation])
        assert ends[:, [0, 2]] == pytest.approx(body_points(alpha, robot.link_length, anchor=0), abs=1e-9)


@pytest.mark.parametrize("hardware", HARDWARE)
def test_module_mesh_uri_resolves_for_each_back_end(hardware, make_urdf):
    """RViz anywhere resolves package://; Gazebo gets an absolute file:// URI (no resource path needed)."""
    uris = {m.get("filename") for m in ET.fromstring(make_urdf("koopaee6", hardware=hardware)).iter("mesh")}
    (uri,) = uris
    if hardware == "gazebo":
        assert uri.startswith("file:///")
        assert Path(uri[len("file://"):]).resolve() == (locator.description_dir() / "urdf" / "meshes" /
                                                         "octagonal_module.stl").resolve()
    else:
        assert uri == "package://snake_description/urdf/meshes/octagonal_module.stl"


@pytest.mark.parametrize("robot", ROBOTS)
def test_urdf_names_are_snake_cores_shared_names(robot, make_urdf):
    """/joint_states, the CAN bridge and the recordings use snake_core.interface; the URDF must agree."""
    from snake_core import interface

    r = load_robot(robot)
    root = ET.fromstring(make_urdf(robot))
    n = r.n_joints
    moving = sorted(name for name, j in _joints(root).items() if j.get("type") == "revolute")
    expected = interface.motor_names(n) + interface.spring_names(n) if r.sea is not None else interface.joint_names(n)
    assert moving == sorted(expected)
    links = {link.get("name") for link in root.findall("link")}
    assert {interface.link_name(i) for i in range(1, r.n_links + 1)} <= links
    if r.sea is not None:
        assert {interface.rotor_name(j) for j in range(1, n + 1)} <= links
