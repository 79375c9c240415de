"""SDF worlds are read into the ground plane and boxes the simulators touch."""

import pytest

from snake_core.validation import ConfigError
from snake_sim.core.world import load_world


def test_flat_world_has_ground_and_no_boxes():
    world = load_world("flat")
    assert world.ground_height == 0.0
    assert world.boxes == ()


def test_unknown_world_is_refused_with_the_known_names():
    with pytest.raises(ConfigError, match=r"unknown world; known: .*flat"):
        load_world("moon")


def test_pose_with_roll_is_refused(tmp_path):
    sdf = tmp_path / "tilted.sdf"
    sdf.write_text(
        '<sdf version="1.9"><world name="w"><model name="b"><static>true</static><pose>0 0 0 0.1 0 0</pose>'
        "<link name='l'><collision name='c'><geometry><box><size>1 1 1</size></box></geometry></collision>"
        "</link></model></world></sdf>"
    )
    with pytest.raises(ConfigError, match=r"model\[b\]\.pose"):
        load_world(sdf)


def test_box_pose_composes_model_link_and_collision_poses(tmp_path):
    sdf = tmp_path / "box.sdf"
    sdf.write_text(
        '<sdf version="1.9"><world name="w"><model name="step"><static>true</static><pose>1 0 0 0 0 0</pose>'
        "<link name='l'><pose>0 0 0.018 0 0 0</pose><collision name='c'><pose>0.1 0 0 0 0 0</pose>"
        "<geometry><box><size>0.107 1 0.036</size></box></geometry></collision></link></model></world></sdf>"
    )
    box = load_world(sdf).box("step")
    assert box.center == pytest.approx((1.1, 0.0, 0.018))
    assert box.top == pytest.approx(0.036)
    assert box.x_min == pytest.approx(1.1 - 0.0535)


def _box_world(tmp_path, surface: str) -> object:
    sdf = tmp_path / "rough.sdf"
    sdf.write_text(
        '<sdf version="1.9"><world name="w"><model name="b"><static>true</static><link name="l">'
        f"<collision name='c'><geometry><box><size>0.1 1 0.03</size></box></geometry>{surface}</collision>"
        "</link></model></world></sdf>"
    )
    return sdf


def test_box_friction_is_its_collisions_sdf_surface_friction(tmp_path):
    sdf = _box_world(tmp_path, "<surface><friction><ode><mu>0.25</mu><mu2>0.25</mu2></ode></friction></surface>")
    assert load_world(sdf).box("b").friction == 0.25
    assert load_world(_box_world(tmp_path, "")).box("b").friction is None  # not given: the robot's μ_c
    assert {b.friction for b in load_world("single_obstacle").static_boxes} == {0.6}  # 002 §4.6: μ_c on the faces


@pytest.mark.parametrize(("ode", "message"), [
    ("<mu>-0.2</mu>", r"model\[b\]\.collision\.surface\.friction\.ode\.mu = -0\.2 is invalid: must be .*0"),
    ("<mu>rough</mu>", r"ode\.mu = 'rough' is invalid"),
    ("<mu>0.3</mu><mu2>0.6</mu2>", r"ode\.mu2 = 0\.6 is invalid: must equal mu = 0\.3"),
])
def test_bad_box_friction_is_refused_with_one_message(tmp_path, ode, message):
    with pytest.raises(ConfigError, match=message):
        load_world(_box_world(tmp_path, f"<surface><friction><ode>{ode}</ode></friction></surface>"))


def test_terrain_takes_each_faces_friction_and_joins_a_top_plate(tmp_path):
    """A box with a top plate (worldgen: two collisions) is one box in the plane, the plate's μ on its top and the
    box's on its sides; world.side_friction replaces the sides' μ; a box without friction gets μ_c."""
    from snake_sim.core import worldgen
    from snake_sim.engines.vertical.terrain import terrain_from_world

    path = tmp_path / "plate.sdf"
    path.write_text(worldgen.single_obstacle_world(top_friction=0.82))
    world = load_world(path)
    assert len(world.static_boxes) == 2  # box and plate, as Gazebo sees them
    terrain = terrain_from_world(world, 0.5)
    h, a = worldgen.SINGLE_OBSTACLE
    assert len(terrain.boxes) == 1
    assert terrain.boxes[0].tolist() == pytest.approx([0.4452 + 0.150, 0.4452 + 0.150 + a, 0.0, h])
    assert terrain.friction.tolist() == [[0.82, 0.6]]  # top: the plate's; sides: the box's
    assert terrain_from_world(world, 0.5, side_friction=0.1).friction.tolist() == [[0.82, 0.1]]
    assert terrain_from_world(load_world(_box_world(tmp_path, "")), 0.5).friction.tolist() == [[0.5, 0.5]]
