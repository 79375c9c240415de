"""SDF worlds are read into the ground plane and boxes the simulators touch."""

import pytest

from snake_core.validation import ConfigError
from snake_sim.world import load_world


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
