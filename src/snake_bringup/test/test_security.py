"""SROS2 for robot.launch.py: the keystore made by ``python -m snake_bringup.security`` has one enclave per node of
the launch; each permissions document validates against the DDS Security XSD sros2 ships, lists exactly the topics
that node publishes and subscribes (ours read from the running nodes; docs/design.md's names below), and is signed by
the keystore's permissions CA (openssl smime -verify), each enclave's certificate by its identity CA; the launch
starts every node with ``--enclave`` and, with secure:=true, ROS_SECURITY_ENABLE/STRATEGY/KEYSTORE. The Fast DDS
of the Jazzy wheels here is built without the security plugins: a node asked to run secured refuses to start (it
never runs unsecured)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from snake_core import interface as i

pytest.importorskip("rclpy", reason="needs ROS 2 Jazzy's rclpy (make ros)")
os.environ.setdefault("AMENT_PREFIX_PATH", sys.prefix)  # sros2 finds its share through ament_index
sros2 = pytest.importorskip("sros2.keystore", reason="needs sros2 (make ros installs it from the Jazzy source bundle)")

from snake_bringup import security  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
NODE = {"/rosout", "/parameter_events"}
#: What each of our nodes of robot.launch.py (koopaee6, position, composed) publishes and subscribes.
OURS = {
    "/snake/can_bridge": ({i.CAN_BRIDGE_JOINT_STATES, i.CAN_BRIDGE_ESTOP_ENGAGED, i.DIAGNOSTICS, *NODE},
                          {i.CAN_BRIDGE_JOINT_COMMANDS, i.MOTOR_POSITION_COMMANDS}),  # the latter: its deadman
    "/snake/gait_generator": ({i.GAIT_REFERENCE, i.DIAGNOSTICS, *NODE}, {i.CAN_BRIDGE_ESTOP_ENGAGED}),
    "/snake/sea_joint_controller": ({i.MOTOR_POSITION_COMMANDS, i.MOTOR_VELOCITY_COMMANDS, i.DIAGNOSTICS, *NODE},
                                    {i.GAIT_REFERENCE, i.JOINT_STATES, i.TORQUE_REFERENCE, i.CAN_BRIDGE_JOINT_STATES}),
}
ENCLAVES = {*OURS, *(f"/snake/{n}" for n in (*security.UPSTREAM, "rviz2", "operator"))}


@pytest.fixture(scope="module")
def keystore(tmp_path_factory):
    path = tmp_path_factory.mktemp("sros2") / "keystore"
    grants = security.robot_graph("koopaee6", "position", "composed", "pedal_wave", ROOT)
    security.create_keystore(path, grants)
    return path, {g.enclave: g for g in grants}


def permitted(document: Path) -> tuple[set[str], set[str]]:
    """ROS topics of a permissions.xml's publish and subscribe rules (rt/<name>), the DDS discovery topic left out."""
    root = ElementTree.parse(document).getroot()

    def topics(rule: str) -> set[str]:
        return {"/" + t.text[3:] for t in root.iter() if t.tag == "topic" and t.text.startswith("rt/")
                for r in root.iter(rule) if t in r.iter()}

    return topics("publish"), topics("subscribe")


def test_one_enclave_per_node_of_the_launch(keystore):
    path, grants = keystore
    assert set(grants) == ENCLAVES
    assert sros2.get_enclaves(path) == ENCLAVES


def test_permissions_validate_against_the_dds_security_schema(keystore):
    from lxml import etree
    from sros2.policy import get_transport_schema

    path, grants = keystore
    permissions = etree.XMLSchema(etree.parse(str(get_transport_schema("dds", "permissions.xsd"))))
    governance = etree.XMLSchema(etree.parse(str(get_transport_schema("dds", "governance.xsd"))))
    governance.assertValid(etree.parse(str(path / "enclaves" / "governance.xml")))
    for enclave in grants:
        permissions.assertValid(etree.parse(str(path / "enclaves" / enclave.lstrip("/") / "permissions.xml")))


def test_our_nodes_may_use_exactly_their_topics_and_the_others_what_their_sources_name(keystore):
    path, grants = keystore
    for enclave in ENCLAVES:
        publish, subscribe = permitted(path / "enclaves" / enclave.lstrip("/") / "permissions.xml")
        if enclave in OURS:
            assert (publish, subscribe) == OURS[enclave], enclave
        assert (publish, subscribe) == (set(grants[enclave].publish), set(grants[enclave].subscribe)), enclave
        assert not any("*" in t for t in publish | subscribe), enclave  # no wildcard topic
    assert permitted(path / "enclaves/snake/rviz2/permissions.xml")[0] == NODE  # rviz2 only reads
    # the controller manager takes the commands of koopaee6.yaml's two forward command controllers
    assert {i.MOTOR_POSITION_COMMANDS, i.MOTOR_VELOCITY_COMMANDS} <= permitted(
        path / "enclaves/snake/controller_manager/permissions.xml")[1]


def test_only_the_operator_enclave_may_call_the_estop_and_arm_services_and_their_nodes_serve_them(keystore):
    """Engaging and releasing the e-stop, arming the gait: the operator's enclave requests them, the bridge's and
    the gait generator's reply; no controller's enclave (nor any other) may do either, so a compromised controller
    cannot release the operator's stop or start the gait."""
    path, _grants = keystore

    def rules(enclave):
        root = ElementTree.parse(path / "enclaves" / enclave.lstrip("/") / "permissions.xml").getroot()
        return {rule: {t.text for r in root.iter(rule) for t in r.iter("topic")} for rule in ("publish", "subscribe")}

    for service, server in (("can_bridge/estop", "/snake/can_bridge"), ("gait_generator/arm", "/snake/gait_generator")):
        request, reply = f"rq/{service}Request", f"rr/{service}Reply"
        callers = {e for e in ENCLAVES if request in rules(e)["publish"]}
        servers = {e for e in ENCLAVES if reply in rules(e)["publish"]}
        assert callers == {"/snake/operator"} and servers == {server}, service
        assert reply in rules("/snake/operator")["subscribe"]


def test_the_controller_nodes_and_the_spawner_may_serve_their_own_services(keystore):
    """Each controller, and the hardware component, is a node in ros2_control_node's process (one participant, the
    controller_manager enclave) with rclcpp's parameter services and, on Jazzy, logger services
    (define_custom_node_options: enable_logger_service): without them a secured controller could not be loaded."""
    from snake_bringup.ros2_control import controllers_file, spawned_controllers

    path, _grants = keystore
    root = ElementTree.parse(path / "enclaves/snake/controller_manager/permissions.xml").getroot()
    names = {t.text for t in root.iter("topic")}
    controllers = spawned_controllers(ROOT / controllers_file("koopaee6"))
    # and the hardware component's node, named by the URDF's <ros2_control name> (the robot's name; Jazzy's
    # hardware_interface/src/hardware_component_interface.cpp:120-127)
    for controller in ["controller_manager", *controllers, "koopaee6"]:
        for prefix in ("rq", "rr"):  # requests in, replies out
            assert any(n.startswith(f"{prefix}/{controller}/") for n in names), (controller, prefix, sorted(names))
    # Jazzy's spawner is the node spawner_<first controller> (controller_manager/spawner.py:401), with its own
    # parameter services
    spawner = {t.text for t in ElementTree.parse(path / "enclaves/snake/spawner/permissions.xml").getroot().iter(
        "topic")}
    assert f"rq/spawner_{controllers[0]}/get_parametersRequest" in spawner, sorted(spawner)


def test_the_gait_generator_may_switch_the_controllers_it_arms(keystore):
    """Arming activates the robot's command controllers through the controller_manager's switch_controller: the
    gait generator's enclave requests it by name (no other of our nodes; the spawner holds the controller_manager's
    services by its wildcard), the controller_manager's replies."""
    path, _grants = keystore
    request, reply = "rq/controller_manager/switch_controllerRequest", "rr/controller_manager/switch_controllerReply"

    def published(enclave: str) -> set[str]:
        root = ElementTree.parse(path / "enclaves" / enclave.lstrip("/") / "permissions.xml").getroot()
        return {t.text for r in root.iter("publish") for t in r.iter("topic")}

    assert {e for e in ENCLAVES if request in published(e)} == {"/snake/gait_generator"}
    assert {reply, "rr/controller_manager/*Reply"} & published("/snake/controller_manager")  # its services' wildcard


def test_permissions_and_governance_are_signed_by_the_keystore_ca_and_certificates_by_the_identity_ca(keystore,
                                                                                                   tmp_path):
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec

    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command (Debian package openssl)")
    path, grants = keystore
    ca = path / "public" / "permissions_ca.cert.pem"
    identity = x509.load_pem_x509_certificate((path / "public" / "identity_ca.cert.pem").read_bytes())
    for signed in [path / "enclaves" / "governance.p7s",
                   *(path / "enclaves" / e.lstrip("/") / "permissions.p7s" for e in grants)]:
        result = subprocess.run(["openssl", "smime", "-verify", "-text", "-in", str(signed), "-CAfile", str(ca)],
                                capture_output=True, text=True)
        assert result.returncode == 0 and "Verification successful" in result.stderr, (signed, result.stderr)
        assert result.stdout.replace("\r\n", "\n") == signed.with_suffix(".xml").read_text()
    for enclave in grants:
        cert = x509.load_pem_x509_certificate((path / "enclaves" / enclave.lstrip("/") / "cert.pem").read_bytes())
        identity.public_key().verify(cert.signature, cert.tbs_certificate_bytes,
                                     ec.ECDSA(cert.signature_hash_algorithm))
        assert cert.subject.rfc4514_string() == f"CN={enclave}"
    # a CA of another keystore does not verify them
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(tmp_path / "other.key"), "-out", str(tmp_path / "other.pem"), "-subj", "/CN=other",
                    "-days", "1"], check=True, capture_output=True)
    other = subprocess.run(["openssl", "smime", "-verify", "-text", "-in", str(path / "enclaves" / "governance.p7s"),
                            "-CAfile", str(tmp_path / "other.pem")], capture_output=True, text=True)
    assert other.returncode != 0 and "Verification successful" not in other.stderr


def test_a_node_asked_to_run_secured_never_runs_unsecured(keystore, tmp_path):
    path, _ = keystore
    env = {**os.environ, "ROS_SECURITY_ENABLE": "true", "ROS_SECURITY_STRATEGY": "Enforce",
           "ROS_SECURITY_KEYSTORE": str(path), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
    gait = Path(sys.executable).parent / "gait_generator"
    try:
        result = subprocess.run([str(gait), "--ros-args", "--enclave", "/snake/gait_generator"], env=env,
                                capture_output=True, text=True, timeout=15)
    except subprocess.TimeoutExpired:  # a Fast DDS with the security plugins: it runs, in its enclave
        return
    assert result.returncode != 0
    assert "doesn't have the security libraries" in result.stderr  # this machine's wheel (Fast DDS 2.14)
