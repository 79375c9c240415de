"""Every world in worlds/ is accepted by libsdformat (what Gazebo loads) and the embedded simulator
reads the same boxes from it; the worlds contain what the scenarios expect (002 Fig. 7.9, stairs, 001)."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET

import pytest
import yaml

from snake_core import locator
from snake_sim.core import worldgen
from snake_sim.core.world import load_world

WORLDS = locator.world_names()
GZ_SYSTEMS = {"gz::sim::systems::Physics", "gz::sim::systems::UserCommands", "gz::sim::systems::SceneBroadcaster"}


@pytest.mark.parametrize("name", WORLDS)
def test_world_is_accepted_by_libsdformat_and_read_alike_by_the_simulator(name, sdf_checker):
    path = locator.world_file(name)
    rep = sdf_checker(path)
    assert rep.returncode == 0 and not rep.errors, rep.errors
    world = load_world(name)
    assert world.ground_height == pytest.approx(rep.planes.get("ground_plane"), abs=1e-12)
    ours = sorted((b.name, b.center, b.yaw, b.size) for b in world.boxes)
    theirs = sorted((model, tuple(v[:3]), v[3], tuple(v[4:])) for model, boxes in rep.boxes.items() for _, v in boxes)
    assert len(ours) == len(theirs)
    for (n1, c1, y1, s1), (n2, c2, y2, s2) in zip(ours, theirs, strict=True):
        assert n1 == n2
        assert c1 == pytest.approx(c2, abs=1e-12)
        assert math.remainder(y1 - y2, 2 * math.pi) == pytest.approx(0.0, abs=1e-12)
        assert s1 == pytest.approx(s2, abs=1e-12)
    static = sorted(model for model, boxes in rep.boxes.items() for is_static, _ in boxes if is_static)
    assert sorted(b.name for b in world.static_boxes) == static


@pytest.mark.parametrize("name", WORLDS)
def test_obstacle_friction_is_read_alike_by_libsdformat_and_the_simulator(name, sdf_checker):
    """Every static box (obstacle, step) carries its μ in SDF's <surface><friction><ode> (isotropic), and
    libsdformat reads the μ the simulator uses (snake_sim.core.world); worlds/ files carry 002 §4.6's μ_c = 0.6, the
    top plates of the worlds of 002's robot experiments one of the plate range."""
    rep = sdf_checker(locator.world_file(name))
    world = load_world(name)
    ours = {b.friction for b in world.static_boxes}
    assert None not in ours, f"{name}: a static box without <surface><friction><ode><mu>"
    plates = set(worldgen.PLATE_FRICTIONS) if name.startswith("lab_") else set()  # 002's robot experiments only
    assert ours <= {worldgen.FACE_FRICTION, *plates} and (ours & plates or not plates)
    theirs = {mu for mu, mu2, *_ in rep.friction.values()}
    assert theirs == ours and all(mu == mu2 for mu, mu2, *_ in rep.friction.values())


def test_a_box_with_a_top_plate_passes_libsdformat_with_each_collisions_friction(tmp_path, sdf_checker):
    """002 §6.4's plate: two collisions, the box's μ and the plate's, which libsdformat reads per link and the
    simulator joins into one box (top: the plate's μ, sides: the box's)."""
    from snake_sim.engines.vertical.terrain import terrain_from_world

    path = tmp_path / "plate.sdf"
    path.write_text(worldgen.single_obstacle_world(top_friction=0.82))
    rep = sdf_checker(path)
    assert rep.returncode == 0 and not rep.errors, rep.errors
    assert rep.friction["link"][:2] == (worldgen.FACE_FRICTION, worldgen.FACE_FRICTION)
    assert rep.friction["top_plate"][:2] == (0.82, 0.82)
    (_, box), (_, plate) = sorted(rep.boxes["obstacle"], key=lambda r: r[1][2])
    assert plate[2] - 0.5 * plate[6] == pytest.approx(box[2] + 0.5 * box[6], abs=1e-12)  # lies on the box
    assert box[2] - 0.5 * box[6] == pytest.approx(0.0, abs=1e-12)
    assert plate[2] + 0.5 * plate[6] == pytest.approx(worldgen.SINGLE_OBSTACLE[0], abs=1e-12)  # 36 mm in all
    terrain = terrain_from_world(load_world(path), 0.6)
    assert terrain.friction.tolist() == [[0.82, worldgen.FACE_FRICTION]]
    assert terrain.boxes[0, 3] == pytest.approx(worldgen.SINGLE_OBSTACLE[0], abs=1e-12)


@pytest.mark.parametrize("name", WORLDS)
def test_world_is_sdf_1_9_with_the_gz_systems_it_needs(name):
    root = ET.parse(locator.world_file(name)).getroot()
    assert root.get("version") == "1.9"
    plugins = {p.get("name") for p in root.find("world").findall("plugin")}
    assert GZ_SYSTEMS <= plugins


@pytest.mark.parametrize("stem", sorted(worldgen.SHIPPED))
def test_generated_worlds_are_up_to_date_with_the_generator(stem):
    """worlds/<stem>.sdf is what `snake-sim world shipped` writes (so the constants in worldgen rule)."""
    assert locator.world_file(stem).read_text() == worldgen.SHIPPED[stem](), (
        f"worlds/{stem}.sdf is stale: run `snake-sim world shipped`")


def test_two_obstacles_are_002_fig_7_9_with_the_documented_gaps():
    world = load_world("two_obstacles")
    first, second = sorted(world.static_boxes, key=lambda b: b.x_min)
    assert (first.size[2], first.size[0]) == pytest.approx((0.036, 0.107))  # b1 × a1
    assert (second.size[2], second.size[0]) == pytest.approx((0.053, 0.075))  # b2 × a2
    assert first.bottom == second.bottom == pytest.approx(0.0)
    head_tip = 6 * 0.0742  # koopaee6 straight, tail tip at x = 0
    assert first.x_min - head_tip == pytest.approx(0.100, abs=1e-12)  # 002 C.8: starts 100 mm before
    assert second.x_min - first.x_max == pytest.approx(0.100, abs=1e-12)  # gap (not printed in 002)
    assert min(first.size[1], second.size[1]) > 5 * 0.068  # across the whole path


@pytest.mark.parametrize("mu", worldgen.PLATE_FRICTIONS)
def test_the_lab_worlds_are_002s_robot_boards_100_mm_ahead_with_a_top_plate_of_higher_friction(mu):
    """002 §6.4/§7.4: the 36 × 107 mm box 100 mm ahead of the head module; §7.4.2: Fig. 7.9's pair; each box a body
    of the faces' μ and a plate of μ on its top (two collisions, as Gazebo loads them)."""
    head_tip = 6 * 0.0742  # koopaee6 straight, tail tip at x = 0
    for boxes, heights in ((1, (0.036,)), (2, (0.036, 0.053))):
        world = load_world(worldgen.lab_world_name(boxes, mu))
        parts = sorted(world.static_boxes, key=lambda b: (b.x_min, b.bottom))
        assert len(parts) == 2 * boxes
        bodies, plates = parts[0::2], parts[1::2]
        assert [p.top for p in plates] == pytest.approx(heights)
        assert all(p.size[2] == pytest.approx(worldgen.TOP_PLATE_THICKNESS) for p in plates)
        assert [p.friction for p in plates] == [mu] * boxes and [b.friction for b in bodies] == [0.6] * boxes
        assert mu > max(b.friction for b in bodies)  # the plate is "for higher friction"
        assert bodies[0].x_min - head_tip == pytest.approx(0.100, abs=1e-12)
        if boxes == 2:
            assert bodies[1].x_min - bodies[0].x_max == pytest.approx(0.100, abs=1e-12)  # the gap of two_obstacles


def test_stairs_are_three_climbable_steps_ahead_of_the_head():
    steps = sorted(load_world("stairs").static_boxes, key=lambda b: b.x_min)
    assert [s.top for s in steps] == pytest.approx([0.030, 0.060, 0.090])
    assert all(s.bottom == pytest.approx(0.0) for s in steps)
    for lower, upper in itertools.pairwise(steps):
        assert upper.x_min == pytest.approx(lower.x_max, abs=1e-12)  # risers, no gaps, no overlap
    assert all(s.size[0] >= 3 * 0.0742 for s in steps)  # each tread holds three modules
    assert all(s.top - lower <= 0.036 + 1e-12 for s, lower in zip(steps, [0.0, 0.03, 0.06], strict=True))
    assert steps[0].x_min - 6 * 0.0742 == pytest.approx(0.150, abs=1e-12)


def test_pushing_world_has_a_free_object_of_kappa_link_masses_beside_the_tail_link():
    world = load_world("pushing")
    assert world.static_boxes == ()
    (obj,) = world.boxes
    root = ET.parse(locator.world_file("pushing")).getroot()
    model = next(m for m in root.iter("model") if m.get("name") == obj.name)
    assert model.findtext("static") == "false"
    assert float(model.findtext("link/inertial/mass")) == pytest.approx(100 * 1.0)  # κ m, 001 Table 1 / Fig. 4
    assert obj.center[0] == pytest.approx(0.5 * 0.15)  # mid-link of the 0.15 m tail link
    assert obj.y_min == pytest.approx(0.5 * worldgen.PUSHING_ROBOT_WIDTH)  # touching the link's side
    assert obj.bottom == pytest.approx(0.0)


def _world_names(node) -> list[str]:
    """World names a scenario file refers to (`world: NAME` or `world: {file: NAME}`)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "world" and isinstance(value, str):
                found.append(value)
            elif key == "world" and isinstance(value, dict) and isinstance(value.get("file"), str):
                found.append(value["file"])
            else:
                found += _world_names(value)
    elif isinstance(node, list):
        for value in node:
            found += _world_names(value)
    return found


def test_every_world_a_scenario_names_exists_and_starts_the_robot_clear_of_its_obstacles():
    """A scenario's robot (straight, tail tip at world.start_x, default 0) starts on the ground in
    front of every static box of its world, never inside one."""
    from snake_core.robot import load_robot

    for scenario in sorted((locator.data_dir() / "config" / "scenarios").glob("*.yaml")):
        data = yaml.safe_load(scenario.read_text())
        for name in _world_names(data):
            world = load_world(name)
            assert world.ground_height is not None, f"{scenario.name}: world {name} has no ground"
            robot_cfg = data["robot"] if isinstance(data.get("robot"), dict) else {}
            world_cfg = data["world"] if isinstance(data.get("world"), dict) else {}
            robot = robot_cfg.get("name", "koopaee6")
            start = world_cfg.get("start_x", 0.0)  # tail tip at t = 0 (snake_sim.core.scenario)
            head = start + load_robot(robot).total_length
            ahead = [b for b in world.static_boxes if b.x_max > start]
            assert all(b.x_min >= head for b in ahead), (
                f"{scenario.name}: the robot ({start:g} … {head:g} m) starts inside a box of {name}")
