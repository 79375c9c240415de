"""Names of joints, motors and link frames shared by the URDF, /joint_states, the CAN bridge and the
recordings (DESIGN.md "ROS 2 interface"). Index j is 1-based, tail (joint 1) → head (joint N−1)."""

from __future__ import annotations


def joint_name(j: int) -> str:
    """Link-side SEA joint j: /joint_states carries α_j (position), α̇_j (velocity), τ_j (effort)."""
    return f"joint_{j}"


def motor_name(j: int) -> str:
    """Motor side of SEA joint j: /joint_states carries β_j (position)."""
    return f"motor_{j}"


def joint_names(n_joints: int) -> list[str]:
    return [joint_name(j) for j in range(1, n_joints + 1)]


def motor_names(n_joints: int) -> list[str]:
    return [motor_name(j) for j in range(1, n_joints + 1)]


# URDF (urdf/snake_module.xacro): link_i (origin at its tail end), and SEA joint j as motor_j (β_j)
# → rotor_j → spring_j (α_j − β_j) between link_j and link_{j+1}; rigid robots use joint_j.
def link_name(i: int) -> str:
    return f"link_{i}"


def rotor_name(j: int) -> str:
    return f"rotor_{j}"


def spring_name(j: int) -> str:
    return f"spring_{j}"


def spring_names(n_joints: int) -> list[str]:
    return [spring_name(j) for j in range(1, n_joints + 1)]


def sea_from_urdf(beta: float, beta_dot: float, deflection: float, deflection_dot: float,
                  stiffness: float) -> tuple[float, float, float]:
    """(α_j, α̇_j, τ_j) of an SEA joint reported by its URDF joints motor_j (β) and spring_j (α − β),
    as Gazebo's and the CAN hardware's joint_state_broadcaster publish them; τ_j = K_j (α_j − β_j),
    002 (4.36) (the spring's own effort state is not used: Gazebo reports no spring torque there)."""
    return beta + deflection, beta_dot + deflection_dot, stiffness * deflection
