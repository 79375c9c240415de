"""Generator of the SDF worlds shared by Gazebo and the embedded simulators.

The worlds in ``worlds/`` with obstacles, stairs or a pushed object are written by this module
(``snake-sim world …`` writes others), so their numbers are named constants here, each with its
source. Every world is SDF 1.9 with the gz-sim system plugins a world needs (physics, user
commands, scene broadcaster), a ground plane at z = 0 and box models, the only shapes
:func:`snake_sim.core.world.load_world` extracts. Boxes sit on the ground, span the robot's path across
y and are described by their near edge along x, the direction of travel.

Friction is per collision, in SDF's own ``<surface><friction><ode><mu>`` (isotropic: mu2 = mu), which
Gazebo and :func:`snake_sim.core.world.load_world` both read: the μ of the pair robot–surface on every face of
that box (002's μ_c is such a pair's coefficient, §5.5). A box whose top is of another material (002 §6.4's
plate) is two collisions, each in its own link: the box up to the plate's underside and the plate of
``TOP_PLATE_THICKNESS`` on it; the vertical model joins them into one box with the plate's μ on its top
(``snake_sim.engines.vertical.terrain``). The ground plane carries no friction element: its μ is the scenario's
``contact.friction`` (in Gazebo the robot's links carry it, and an engine takes the smaller of two
surfaces' μ, the plane's default being 1).

Placement follows the robot's default start pose of the vertical-plane simulator
(``snake_core.vertical.initial_configuration``: tail tip at x = 0, body straight along +x), so
the head tip starts at x = N · 2l (0.4452 m for koopaee6, read from its robot file): obstacles are
placed relative to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from snake_core.robot import load_robot
from snake_core.validation import integer, number

#: The robot whose default start pose places the shipped obstacle worlds (002's robot).
REFERENCE_ROBOT = "koopaee6"
#: Lateral extent of obstacles and steps (across the path, y) [m]: a lab board, wide enough that
#: the 68 mm robot cannot slip past; not given in 002.
PATH_WIDTH = 0.6

#: μ on every face of the shipped obstacles and steps: 002 §4.6 (Fig. 4.4) puts the ground's law, μ_c = 0.6
#: of Table 5.1, on an obstacle's top and sides. A study changes the sides with ``world.side_friction``.
FACE_FRICTION = 0.6
#: Thickness of a top plate of another material (002 §6.4's plate; 002 gives no thickness) [m].
TOP_PLATE_THICKNESS = 0.002

#: 002 §7.3 (Table 7.1, Fig. 7.2): the single obstacle, 36 mm high × 107 mm long (height b × length a) [m],
#: its near edge 150 mm ahead of the head tip.
SINGLE_OBSTACLE = (0.036, 0.107)
SINGLE_OBSTACLE_START_GAP = 0.150

# Two obstacles of 002 Fig. 7.9, (height b × width a along the path). The caption (b2 = 53 mm,
# a2 = 75 mm) is followed; the list of figures prints 61 × 44 mm for obstacle 2.
OBSTACLE_1 = SINGLE_OBSTACLE  # b1 × a1 [m], the obstacle of §7.3
OBSTACLE_2 = (0.053, 0.075)  # b2 × a2 [m]
#: Start gap: "the snake robot begins the motion 100mm away from the first obstacle" (002 §7.4, C.8).
TWO_OBSTACLES_START_GAP = 0.100
#: Gap between the obstacles: not printed in 002. 002 warns that "the robot head module [may] get
#: stuck in the gap", so the gap is wider than one module (74.2 mm) and narrower than two: 100 mm.
TWO_OBSTACLES_GAP = 0.100
#: The gap's range for a study of what it changes: within that reading, 80 and 140 mm (shipped as the boards of
#: 002's robot experiment ``lab_two_obstacles_gap080_plate082`` and ``lab_two_obstacles_gap140_plate082``).
TWO_OBSTACLES_GAPS = (0.080, 0.140)

#: 002's robot experiments (§6.4, §7.4): the 36 × 107 mm obstacle "located 100mm away from joint 5 (head module)"
#: (§7.4), read as 100 mm ahead of the head module's tip, as the two obstacles of C.8 ("begins the motion 100mm away
#: from the first obstacle"); §6.4 prints no distance ("a same initial position relative to the obstacle"): the same
#: board is read.
LAB_START_GAP = 0.100
#: μ of the plate on the boxes' tops in 002's robot experiments: "the blue plate attached to the top of the obstacle
#: is only for higher friction and to avoid slipping and was consistent for every experiments" (§6.4); its μ is not
#: printed. The range: the high-friction plate 002 measured in §5.5 (μ_c = 0.82), and 1.2 for a rubber-like pad
#: (an assumption, not 002's).
PLATE_FRICTIONS = (0.82, 1.2)

# Stairs: 3 steps of 30 mm, below the 36 mm obstacle 002's TSC climbs (§7.3) so that every step
# is climbable by itself; a 250 mm run holds more than three 74.2 mm modules, so the body can rest
# on one step while the head lifts onto the next. Starts 150 mm ahead of the head tip as 002's
# single-obstacle run (§7.3).
STAIRS_STEPS = 3
STAIRS_RISE = 0.030  # [m]
STAIRS_RUN = 0.250  # [m]
STAIRS_START_GAP = 0.150  # [m]

# Pushing (001): an object of κ link masses touching the tail link from the side at mid-link, the
# contact normal perpendicular to link 1 through the object's centre of mass (001 Fig. 3,
# seed001_pushing.md §3); κ = 100 and m = 1 kg, ℓ = 0.15 m are 001 Table 1 / Fig. 4.
PUSHING_KAPPA = 100.0
PUSHING_LINK_MASS = 1.0  # m [kg], 001 Table 1
PUSHING_LINK_LENGTH = 0.15  # ℓ [m], 001 Table 1
PUSHING_BOX_SIZE = (0.30, 0.30, 0.10)  # [m]; 001 gives no shape (only the mass matters at a COM contact)
PUSHING_ROBOT_WIDTH = 0.05  # module width [m]: 001 gives none; ariizumi10's 50 mm, the box face touches it

#: Gazebo physics step [s] of every world (the embedded simulator uses its own integrator).
GZ_MAX_STEP = 0.001

_HEADER = """<?xml version="1.0"?>
<!-- {comment} -->
<!-- Generated by {command}; edit the generator, not this file. -->
<sdf version="1.9">
  <world name="{name}">
    <physics name="1ms" type="ignored">
      <max_step_size>{step}</max_step_size>
      <real_time_factor>1.0</real_time_factor>
    </physics>
    <plugin filename="gz-sim-physics-system" name="gz::sim::systems::Physics"/>
    <plugin filename="gz-sim-user-commands-system" name="gz::sim::systems::UserCommands"/>
    <plugin filename="gz-sim-scene-broadcaster-system" name="gz::sim::systems::SceneBroadcaster"/>
    <gravity>0 0 -9.81</gravity>
    <light type="directional" name="sun">
      <cast_shadows>true</cast_shadows>
      <pose>0 0 10 0 0 0</pose>
      <diffuse>0.8 0.8 0.8 1</diffuse>
      <direction>-0.5 0.1 -0.9</direction>
    </light>
    <model name="ground_plane">
      <static>true</static>
      <link name="link">
        <collision name="collision">
          <geometry><plane><normal>0 0 1</normal><size>100 100</size></plane></geometry>
        </collision>
        <visual name="visual">
          <geometry><plane><normal>0 0 1</normal><size>100 100</size></plane></geometry>
          <material><ambient>0.8 0.8 0.8 1</ambient><diffuse>0.8 0.8 0.8 1</diffuse></material>
        </visual>
      </link>
    </model>
"""

_BOX = """    <model name="{name}">
      <static>{static}</static>
      <pose>{x} {y} {z} 0 0 0</pose>
{links}    </model>
"""

_LINK = """      <link name="{link}">{inertial}
        <collision name="collision">{pose}
          <geometry><box><size>{sx} {sy} {sz}</size></box></geometry>{surface}
        </collision>
        <visual name="visual">{pose}
          <geometry><box><size>{sx} {sy} {sz}</size></box></geometry>
          <material><ambient>{rgb} 1</ambient><diffuse>{rgb} 1</diffuse></material>
        </visual>
      </link>
"""

_SURFACE = """
          <surface><friction><ode><mu>{mu}</mu><mu2>{mu}</mu2></ode></friction></surface>"""

_INERTIAL = """
        <inertial>
          <mass>{m}</mass>
          <inertia><ixx>{ixx}</ixx><ixy>0</ixy><ixz>0</ixz><iyy>{iyy}</iyy><iyz>0</iyz><izz>{izz}</izz></inertia>
        </inertial>"""

_FOOTER = """  </world>
</sdf>
"""


@dataclass(frozen=True)
class BoxSpec:
    """A box on the ground: near edge ``x_min`` along the path, size (length x, width y, height z)."""

    name: str
    x_min: float
    length: float
    width: float
    height: float
    y: float = 0.0
    mass: float | None = None  # None: a static model; otherwise a dynamic box of this mass [kg]
    friction: float | None = FACE_FRICTION  # μ of every face; None: no friction element (the engine's)
    top_friction: float | None = None  # μ of a top plate of TOP_PLATE_THICKNESS; None: no plate

    @property
    def center(self) -> tuple[float, float, float]:
        return (self.x_min + 0.5 * self.length, self.y, 0.5 * self.height)

    @property
    def size(self) -> tuple[float, float, float]:
        return (self.length, self.width, self.height)


def _num(v: float) -> str:
    """Shortest exact decimal text of a float (repr), without a trailing '.0' for integers."""
    text = repr(float(round(v, 12)))
    return text[:-2] if text.endswith(".0") else text


def world_sdf(name: str, boxes: Sequence[BoxSpec], comment: str, command: str) -> str:
    """SDF 1.9 text of a world with a ground plane and the given boxes."""
    if "--" in comment + command:  # not allowed inside an XML comment
        raise ValueError("an XML comment cannot contain '--'")
    parts = [_HEADER.format(name=name, comment=comment, command=command, step=_num(GZ_MAX_STEP))]
    for b in boxes:
        sx, sy, sz = b.size
        inertial = ""
        if b.mass is not None:  # solid cuboid: I_xx = m (y² + z²) / 12, …
            inertial = _INERTIAL.format(m=_num(b.mass), ixx=_num(b.mass * (sy**2 + sz**2) / 12),
                                        iyy=_num(b.mass * (sx**2 + sz**2) / 12),
                                        izz=_num(b.mass * (sx**2 + sy**2) / 12))
        rgb = "0.8 0.3 0.1" if b.mass is not None else "0.45 0.45 0.5"
        # (link, μ, height, z of its centre relative to the model's): the box, and its top plate if it has one
        layers = [("link", b.friction, sz, 0.0)]
        if b.top_friction is not None:
            t = TOP_PLATE_THICKNESS
            layers = [("link", b.friction, sz - t, -0.5 * t), ("top_plate", b.top_friction, t, 0.5 * (sz - t))]
        links = "".join(
            _LINK.format(link=link, inertial=inertial if link == "link" else "", sx=_num(sx), sy=_num(sy), sz=_num(h),
                         pose=f"\n          <pose>0 0 {_num(dz)} 0 0 0</pose>" if dz else "",
                         surface="" if mu is None else _SURFACE.format(mu=_num(mu)),
                         rgb=rgb if link == "link" else "0.1 0.2 0.7")
            for link, mu, h, dz in layers)
        x, y, z = b.center
        parts.append(_BOX.format(name=b.name, static="false" if b.mass is not None else "true", x=_num(x),
                                 y=_num(y), z=_num(z), links=links))
    parts.append(_FOOTER)
    return "".join(parts)


def stairs(steps: int, rise: float, run: float, start: float, width: float = PATH_WIDTH) -> list[BoxSpec]:
    """A flight of ``steps`` steps going up along +x from ``start``: step k (1-based) is a block
    ``run`` long and k·``rise`` high, side by side, so each tread is one box top and each riser one
    box face (no box inside another)."""
    integer(steps, "--steps", low=1, high=50)
    number(rise, "--rise", low=0.0, high=0.5, low_open=True)
    number(run, "--run", low=0.0, high=5.0, low_open=True)
    number(start, "--start", low=-10.0, high=10.0)
    number(width, "--width", low=0.0, high=10.0, low_open=True)
    return [BoxSpec(f"step_{k}", start + (k - 1) * run, run, width, k * rise) for k in range(1, steps + 1)]


def head_tip_x(robot: str | Path = REFERENCE_ROBOT) -> float:
    """x of the head tip in the robot's default start pose (tail tip at x = 0): N · 2l."""
    return load_robot(robot).total_length


def stairs_world(steps: int = STAIRS_STEPS, rise: float = STAIRS_RISE, run: float = STAIRS_RUN,
                 start: float | None = None, width: float = PATH_WIDTH, name: str = "stairs",
                 robot: str | Path = REFERENCE_ROBOT) -> str:
    """SDF of a flight of stairs (see :func:`stairs`); by default 150 mm ahead of the robot's head tip."""
    start = head_tip_x(robot) + STAIRS_START_GAP if start is None else start
    comment = (f"Stairs: {steps} steps, rise {rise * 1e3:g} mm, run {run * 1e3:g} mm, first riser at "
               f"x = {start:g} m, {width:g} m wide (across y).")
    command = f"snake_sim.core.worldgen.stairs_world(steps={steps}, rise={rise:g}, run={run:g}, start={start:g})"
    return world_sdf(name, stairs(steps, rise, run, start, width), comment, command)


def _plate(top_friction: float | None) -> str:
    """The world comment's words for a top plate of μ = ``top_friction`` (validated), or none."""
    if top_friction is None:
        return ""
    number(top_friction, "top_friction", low=0.0, high=5.0)
    return f", with a top plate of mu = {top_friction:g}"


def single_obstacle_world(top_friction: float | None = None, robot: str | Path = REFERENCE_ROBOT) -> str:
    """002 §7.3: one 36 × 107 mm box (height × length) 150 mm ahead of the head tip, μ_c on every face, or
    with a top plate of μ = ``top_friction`` (002 §6.4's experiment)."""
    plate = _plate(top_friction)
    h, a = SINGLE_OBSTACLE
    head = head_tip_x(robot)
    box = BoxSpec("obstacle", head + SINGLE_OBSTACLE_START_GAP, a, PATH_WIDTH, h, top_friction=top_friction)
    comment = (f"Single obstacle of 002 §7.3 (Table 7.1, Fig. 7.2): 36 mm high x 107 mm long, its near edge 150 mm "
               f"ahead of the head tip of {Path(robot).stem} in its default start pose (tail tip at x = 0, head tip "
               f"at x = {head:g} m); mu = {FACE_FRICTION:g} on its faces{plate}.")
    args = "" if top_friction is None else f"top_friction={top_friction:g}"
    return world_sdf("single_obstacle", [box], comment, f"snake_sim.core.worldgen.single_obstacle_world({args})")


def _two_obstacles(start: float, top_friction: float | None, gap: float = TWO_OBSTACLES_GAP) -> list[BoxSpec]:
    """Fig. 7.9's pair from ``start`` (near edge of the first box), ``gap`` apart."""
    x2 = start + OBSTACLE_1[1] + gap
    return [BoxSpec("obstacle_1", start, OBSTACLE_1[1], PATH_WIDTH, OBSTACLE_1[0], top_friction=top_friction),
            BoxSpec("obstacle_2", x2, OBSTACLE_2[1], PATH_WIDTH, OBSTACLE_2[0], top_friction=top_friction)]


def two_obstacles_world(robot: str | Path = REFERENCE_ROBOT) -> str:
    """002 Fig. 7.9: 36 × 107 mm, then 53 × 75 mm (height × length), 100 mm ahead of the head tip,
    :data:`TWO_OBSTACLES_GAP` apart (002 prints no gap)."""
    boxes = _two_obstacles(head_tip_x(robot) + TWO_OBSTACLES_START_GAP, None)
    comment = (f"Two obstacles of 002 Fig. 7.9: 36 mm high x 107 mm long, a {1e3 * TWO_OBSTACLES_GAP:g} mm gap, "
               f"then 53 mm high x 75 mm long; the first 100 mm ahead of the head tip of {Path(robot).stem} (tail tip "
               "at x = 0).")
    return world_sdf("two_obstacles", boxes, comment, "snake_sim.core.worldgen.two_obstacles_world()")


def lab_world_name(boxes: int, top_friction: float, gap: float = TWO_OBSTACLES_GAP) -> str:
    """File stem of a world of 002's robot experiments: one box (§6.4, §7.4) or two (§7.4.2), plate μ in
    hundredths (``lab_obstacle_plate082``); two boxes other than the read :data:`TWO_OBSTACLES_GAP` apart carry the
    gap in mm (``lab_two_obstacles_gap080_plate082``)."""
    kind = {1: "obstacle", 2: "two_obstacles"}[boxes]
    apart = f"_gap{round(1e3 * gap):03d}" if boxes == 2 and gap != TWO_OBSTACLES_GAP else ""
    return f"lab_{kind}{apart}_plate{round(100 * top_friction):03d}"


def lab_world(boxes: int, top_friction: float, robot: str | Path = REFERENCE_ROBOT,
              gap: float = TWO_OBSTACLES_GAP) -> str:
    """002's robot experiments: the 36 × 107 mm obstacle (``boxes`` = 1, §6.4 and §7.4) or Fig. 7.9's pair
    ``gap`` apart (``boxes`` = 2, §7.4.2), :data:`LAB_START_GAP` ahead of the head tip, μ_c on the faces and a top
    plate of μ = ``top_friction`` on every box."""
    plate = _plate(top_friction)
    start = head_tip_x(robot) + LAB_START_GAP
    h, a = SINGLE_OBSTACLE
    if boxes == 1:
        specs = [BoxSpec("obstacle", start, a, PATH_WIDTH, h, top_friction=top_friction)]
        what = "the obstacle of 002 §6.4 and §7.4: 36 mm high x 107 mm long"
    else:
        specs = _two_obstacles(start, top_friction, gap)
        what = (f"the two obstacles of 002 §7.4.2 (Fig. 7.9): 36 mm high x 107 mm long, a {1e3 * gap:g} mm gap (not "
                "printed in 002), then 53 mm high x 75 mm long")
    comment = (f"002's robot experiments, {what}; the first near edge {1e3 * LAB_START_GAP:g} mm ahead of the head "
               f"tip of {Path(robot).stem} (tail tip at x = 0); mu = {FACE_FRICTION:g} on the faces{plate}.")
    name = lab_world_name(boxes, top_friction, gap)
    args = "" if boxes == 1 or gap == TWO_OBSTACLES_GAP else f", gap={gap:g}"
    return world_sdf(name, specs, comment,
                     f"snake_sim.core.worldgen.lab_world(boxes={boxes}, top_friction={top_friction:g}{args})")


def pushing_world() -> str:
    """001: a free box of κ link masses touching the side of the tail link at mid-link (horizontal plane)."""
    sx, sy, sz = PUSHING_BOX_SIZE
    box = BoxSpec("object", 0.5 * PUSHING_LINK_LENGTH - 0.5 * sx, sx, sy, sz,
                  y=0.5 * PUSHING_ROBOT_WIDTH + 0.5 * sy, mass=PUSHING_KAPPA * PUSHING_LINK_MASS,
                  friction=None)  # 001's model has its own contact laws (frictionless snake–box contact)
    comment = ("Pushing (001): a dynamic box of kappa = 100 link masses (m = 1 kg, 001 Table 1) beside the "
               "tail link, centred on its middle (tail tip at x = 0, body along +x), for the horizontal plane.")
    return world_sdf("pushing", [box], comment, "snake_sim.core.worldgen.pushing_world()")


#: The shipped worlds this module writes: file stem → generator.
SHIPPED = {
    "single_obstacle": single_obstacle_world,
    "two_obstacles": two_obstacles_world,
    "stairs": stairs_world,
    "pushing": pushing_world,
    **{lab_world_name(n, mu): partial(lab_world, n, mu) for n in (1, 2) for mu in PLATE_FRICTIONS},
    **{lab_world_name(2, PLATE_FRICTIONS[0], gap): partial(lab_world, 2, PLATE_FRICTIONS[0], gap=gap)
       for gap in TWO_OBSTACLES_GAPS},
}
