"""An emergency stop that releases (every bus profile, driver and emulated modules in lock step): the driver's
release clears its hold only once every module confirms; a module that keeps its stop keeps the robot held and is
named; a driver started on latched modules (a restarted bridge) reports them and holds, never "running"; a release
sent by another node on the bus is ignored (the robot stays held) unless the robot file's
can.estop_release_from_bus says so, when it goes through the driver's own release path."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from snake_core.robot import load_robot
from snake_hardware import cli
from snake_hardware.diagnostics import ERROR, OK
from snake_hardware.driver import CanDriver, release_frames


def safety(driver):
    return next(r for r in driver.diagnostics() if r.name == "can_bridge: safety")


def stopped(rig):
    r = rig()
    r.start(settle=1.0)  # enabled, holding still
    r.driver.estop(r.t)
    r.run_gait(0.3)
    assert r.driver.holding and all(m.estop and m.latched for m in r.emu.modules)
    return r


def test_release_holds_until_every_module_confirms_then_the_gait_resumes(rig):
    r = stopped(rig)
    r.driver.release(r.t)
    assert r.driver.holding and "waiting for every module to confirm" in r.driver.faults["estop"]
    r.run_gait(0.2)
    assert "estop" not in r.driver.faults and not r.driver.holding
    assert not any(m.estop or m.latched for m in r.emu.modules)
    r.run_gait(0.3)
    assert safety(r.driver).level == OK and safety(r.driver).message == "running"


@pytest.mark.parametrize("profile", ["classic"])
def test_a_module_that_keeps_its_stop_keeps_the_robot_held_and_is_named(rig):
    r = stopped(rig)
    stuck = r.emu.modules[2]
    r.driver.release(r.t)

    def press(rig):  # module 3's own stop input stays pressed
        stuck.estop = stuck.latched = True

    r.run_gait(1.5, on_cycle=press)
    node = stuck.model.node
    assert r.driver.holding
    assert r.driver.faults["estop"].startswith(f"module(s) {node} ")  # did not confirm, or latched again
    assert safety(r.driver).level == ERROR


def test_a_driver_started_on_latched_modules_reports_them_and_holds_never_running(rig):
    r = stopped(rig)
    r.driver.close()  # the bridge stops; the modules stay latched
    r.driver = CanDriver(r.robot, r.bus)
    messages = set()
    r.run_gait(1.0, on_cycle=lambda rig: messages.add(safety(rig.driver).message))
    assert "running" not in messages
    assert r.driver.holding and "latched in an emergency stop" in r.driver.faults["estop"]
    assert safety(r.driver).level == ERROR and "~/estop service" in safety(r.driver).message
    r.driver.release(r.t)
    r.run_gait(0.5)
    assert not r.driver.holding and safety(r.driver).message == "running"


@pytest.mark.parametrize("profile", ["compact"])
def test_a_release_frame_from_another_node_is_ignored_unless_the_robot_file_says_so(rig):
    r = stopped(rig)
    tool = r.bus()
    try:
        fid, data = release_frames(r.robot, 0.05, ())[0]  # the ESTOP release frame alone, as any node can send it
        tool.send(cli.can_message(fid, data))
        r.run_gait(0.5)
        assert r.driver.holding and "release frame from another node on the bus was ignored" in r.driver.faults["estop"]
        assert safety(r.driver).level == ERROR and "~/estop service" in safety(r.driver).message
        assert all(m.latched for m in r.emu.modules)  # released in the modules, not enabled: still held
        r.driver.release(r.t)  # the operator's release (the bridge's service)
        r.run_gait(0.3)
        assert "estop" not in r.driver.faults and not r.driver.holding
    finally:
        tool.shutdown()


@pytest.mark.parametrize("profile", ["compact"])
def test_with_the_robot_files_consent_a_release_from_another_tool_goes_through_the_drivers_release(rig):
    r = rig(robot=replace(load_robot("koopaee6"), can_bus_release=True))
    r.start(settle=1.0)
    r.driver.estop(r.t)
    r.run_gait(0.3)
    tool = r.bus()
    try:
        fid, data = release_frames(r.robot, 0.05, ())[0]
        tool.send(cli.can_message(fid, data))
        r.run_gait(0.3)
        assert "estop" not in r.driver.faults and not r.driver.holding
        assert not any(m.estop or m.latched for m in r.emu.modules)
        np.testing.assert_array_less(np.abs(r.driver.sent), r.robot.joint_limit + 1e-9)
    finally:
        tool.shutdown()
