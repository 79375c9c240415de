# Robot-computer image: ROS 2 Jazzy ros-base (no GUI), ros2_control with Jazzy's topic hardware
# interface (joint_state_topic_hardware_interface), SocketCAN tools and this workspace. Multi-arch: the base image is published for amd64
# and arm64, so it builds natively on an arm64 robot computer or with buildx:
#
#   docker buildx build --platform linux/arm64 -f docker/Dockerfile.robot -t snake-sea-robot --load .
#
# Run it with docker/compose.robot.yaml (host network, the CAN interface of the host).
FROM ros:jazzy-ros-base

# PIP_BREAK_SYSTEM_PACKAGES: rosdep's pip keys (cantools, rosbags) on Ubuntu 24.04 (PEP 668)
ENV DEBIAN_FRONTEND=noninteractive \
    ROS_DISTRO=jazzy \
    PIP_BREAK_SYSTEM_PACKAGES=1 \
    WS=/ws

# rosdep itself and pip, which its pip keys use; every other package comes from the package.xml keys below
RUN apt-get update && apt-get install -y --no-install-recommends python3-pip python3-rosdep \
    && rm -rf /var/lib/apt/lists/*

WORKDIR ${WS}
# The robot's packages only (no simulator: snake_sim and snake_sim_ros stay out, and nothing here imports them);
# their package folders link the workspace's data folders, copied beside them.
COPY src/snake_core ${WS}/src/snake_core
COPY src/snake_description ${WS}/src/snake_description
COPY src/snake_control ${WS}/src/snake_control
COPY src/snake_hardware ${WS}/src/snake_hardware
COPY src/snake_bringup ${WS}/src/snake_bringup
COPY config ${WS}/config
COPY launch ${WS}/launch
COPY urdf ${WS}/urdf
COPY worlds ${WS}/worlds

# What the robot's package.xml files name to build and run (tests are not run here), through rosdep (docs/robot.md
# "Install"); GUI and simulator packages are not installed on the robot (RViz runs on another machine).
RUN apt-get update \
    && (rosdep init 2>/dev/null || true) && rosdep update --rosdistro ${ROS_DISTRO} \
    && rosdep install --from-paths src/snake_core src/snake_description src/snake_control src/snake_hardware \
        src/snake_bringup --ignore-src -y --rosdistro ${ROS_DISTRO} -t buildtool -t build -t exec \
        --skip-keys "rviz2 joint_state_publisher_gui ros_gz_sim ros_gz_bridge gz_ros2_control mujoco_ros2_control" \
    && rm -rf /var/lib/apt/lists/*

RUN . /opt/ros/${ROS_DISTRO}/setup.sh && colcon build --packages-up-to snake_bringup --event-handlers console_direct-

RUN printf '#!/bin/bash\nset -e\n. /opt/ros/%s/setup.bash\n. %s/install/setup.bash\nexec "$@"\n' \
        "${ROS_DISTRO}" "${WS}" > /entrypoint.sh && chmod +x /entrypoint.sh
ENTRYPOINT ["/entrypoint.sh"]
CMD ["ros2", "launch", "snake_bringup", "robot.launch.py"]
