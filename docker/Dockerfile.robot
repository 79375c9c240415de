# Robot-computer image: ROS 2 Jazzy ros-base (no GUI), ros2_control with the topic-based hardware
# interface, SocketCAN tools and this workspace. Multi-arch: the base image is published for amd64
# and arm64, so it builds natively on an arm64 robot computer or with buildx:
#
#   docker buildx build --platform linux/arm64 -f docker/Dockerfile.robot -t snake-sea-robot --load .
#
# Run it with docker/compose.robot.yaml (host network, the CAN interface of the host).
FROM ros:jazzy-ros-base

ENV DEBIAN_FRONTEND=noninteractive \
    ROS_DISTRO=jazzy \
    WS=/ws

RUN apt-get update && apt-get install -y --no-install-recommends \
        python3-pip python3-colcon-common-extensions python3-rosdep \
        ros-jazzy-ros2-control ros-jazzy-ros2-controllers ros-jazzy-topic-based-ros2-control \
        ros-jazzy-xacro ros-jazzy-robot-state-publisher ros-jazzy-rosbag2-storage-mcap \
        can-utils iproute2 \
    && rm -rf /var/lib/apt/lists/*

WORKDIR ${WS}
COPY requirements.txt ${WS}/requirements.txt
COPY src ${WS}/src
COPY config ${WS}/config
COPY launch ${WS}/launch
COPY urdf ${WS}/urdf
COPY worlds ${WS}/worlds

# GUI and simulator packages are not installed on the robot (RViz runs on another machine);
# cantools has no rosdep key: it comes from PyPI below.
RUN apt-get update \
    && (rosdep init 2>/dev/null || true) && rosdep update --rosdistro ${ROS_DISTRO} \
    && rosdep install --from-paths src --ignore-src -y --rosdistro ${ROS_DISTRO} \
        --skip-keys "rviz2 joint_state_publisher_gui ros_gz_sim ros_gz_bridge gz_ros2_control python3-cantools" \
    && pip3 install --no-cache-dir --break-system-packages \
        $(grep -E '^(rosbags|cantools|python-can)==' requirements.txt) \
    && rm -rf /var/lib/apt/lists/*

RUN . /opt/ros/${ROS_DISTRO}/setup.sh && colcon build --event-handlers console_direct-

RUN printf '#!/bin/bash\nset -e\n. /opt/ros/%s/setup.bash\n. %s/install/setup.bash\nexec "$@"\n' \
        "${ROS_DISTRO}" "${WS}" > /entrypoint.sh && chmod +x /entrypoint.sh
ENTRYPOINT ["/entrypoint.sh"]
CMD ["ros2", "launch", "snake_bringup", "robot.launch.py"]
