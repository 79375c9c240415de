# Entry points of the workspace. Everything a fresh Debian/Ubuntu machine needs is installed here:
# a virtual environment in .venv/ with the pinned requirements, the workspace packages in editable
# mode, Debian tools used by the description tests (when apt-get is available), and a colcon build.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
PACKAGES := $(sort $(dir $(wildcard src/*/setup.py)))
STAMP := $(VENV)/.installed
ROSSTAMP := $(VENV)/.ros
SYSSTAMP := $(VENV)/.system-deps
DEBIAN_PACKAGES := liburdfdom-tools libsdformat-dev can-utils g++ pkg-config
DEMO_OUT ?= out/demo
PYTEST_ARGS ?=
#: JUnit XML of each pytest run of `make test`, read back into its one summary.
TEST_RESULTS := build/test-results
#: sros2 (SROS2 keystores) has no wheel: it is installed from the Jazzy source bundle when present.
SROS2_SOURCE ?= ../shared/ros/src/jazzy-stack-src.tar.xz

.PHONY: all install ros ros-stack ros-mujoco system-deps build demo test test-stress bench lint clean

all: demo

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): requirements.txt $(wildcard src/*/setup.py) | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation $(addprefix -e ,$(PACKAGES))
	touch $@

install: $(STAMP)

# ROS 2 Jazzy's rclpy and message packages for the node tests and the ROS graph. A sourced Jazzy
# (ROS_DISTRO=jazzy, rclpy importable) is used as it is; otherwise, on x86_64 Linux, the pinned
# PyPI wheels of requirements-ros.txt go into .venv/. Elsewhere the node tests are skipped (one reason).
$(ROSSTAMP): requirements-ros.txt | $(STAMP)
	@if [ "$${ROS_DISTRO:-}" = jazzy ] && $(PY) -c "import rclpy" 2>/dev/null; then \
		echo "using the sourced ROS 2 $$ROS_DISTRO (rclpy from $$($(PY) -c 'import rclpy, os; print(os.path.dirname(rclpy.__file__))'))"; \
	elif [ "$$(uname -s)-$$(uname -m)" = Linux-x86_64 ]; then \
		$(PY) -m pip install --quiet -r requirements-ros.txt; \
		if [ -f "$(SROS2_SOURCE)" ]; then \
			tmp=$$(mktemp -d) && tar -xJf "$(SROS2_SOURCE)" -C "$$tmp" src/sros2/sros2 && \
			$(PY) -m pip install --quiet --no-deps "$$tmp/src/sros2/sros2"; status=$$?; rm -rf "$$tmp"; \
			[ $$status = 0 ] || exit $$status; \
		else \
			echo "note: no $(SROS2_SOURCE): sros2 not installed, the SROS2 keystore tests are skipped"; \
		fi; \
	else \
		echo "note: no ROS 2 Jazzy wheels for $$(uname -s)-$$(uname -m); source a ROS 2 Jazzy install for the node tests"; \
	fi
	touch $@

ros: $(ROSSTAMP)

# Jazzy's C++ control stack (controller_manager, spawner, joint_state_broadcaster, forward_command_controller,
# pid_controller, joint_state_topic_hardware_interface) and Jazzy's launch/launch_ros (plus composition_interfaces,
# which launch_ros imports and no wheel provides), for the tests on the real controller_manager. A sourced ROS 2 Jazzy with ros2_control is used as it is. Otherwise the stack is built once
# per machine from a source bundle (ROS_STACK_SRC: its tarballs; the build recipe build-stack.sh beside it) into
# a cache outside the clone keyed by the bundle's hash, with its own venv (the recipe edits files in it); a second
# `make` finds the stamp and pays nothing. $(ROS_STACK_ENV) tells the tests which environment to source.
ROS_STACK_SRC ?= $(if $(wildcard ../shared/ros/src/*.tar.xz),../shared/ros/src)
ROS_STACK_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/snake_sea/ros-stack
ROS_STACK_ENV := $(VENV)/.ros-stack-env
ROS_STACK_PIP := ros2cli/ros2cli ros2cli/ros2param launch/launch launch_ros/launch_ros
#: Packages of the bundle that its recipe leaves out and that we build into the stack's install after it:
#: composition_interfaces (launch_ros imports it, no wheel provides it) and diagnostic_aggregator (robot.launch.py
#: aggregates /diagnostics with it).
ROS_STACK_EXTRA := rcl_interfaces/composition_interfaces diagnostics/diagnostic_aggregator
#: The C++ builds write their output to a log file ($$log in the recipe) and print one line per package (colcon's
#: "Finished <<<" / "Failed <<<"): `if ! build 2>&1 | $(BUILD_PROGRESS); then $(BUILD_FAILED); fi`.
BUILD_PROGRESS = tee -a "$$log" | awk '/^(Finished|Failed|Aborted) <<</ { print "  " $$0; fflush() }'
BUILD_FAILED = { echo "the build failed: the last lines of $$log:"; tail -n 40 "$$log"; exit 1; }

ros-stack: | $(PY)
	@set -euo pipefail; \
	ament="$${AMENT_PREFIX_PATH:-}"; for p in $${ament//:/ }; do \
		if [ "$${ROS_DISTRO:-}" = jazzy ] && [ -f "$$p/share/controller_manager/package.xml" ]; then \
			echo "using the sourced ROS 2 Jazzy's ros2_control ($$p)"; echo sourced > $(ROS_STACK_ENV); exit 0; fi; \
	done; \
	src="$(ROS_STACK_SRC)"; \
	if [ -z "$$src" ] || [ ! -f "$$src/../build-stack.sh" ]; then \
		echo "note: no ROS 2 Jazzy ros2_control sourced and no stack source bundle (ROS_STACK_SRC); the tests on the real controller_manager are skipped"; \
		: > $(ROS_STACK_ENV); exit 0; fi; \
	src=$$(cd "$$src" && pwd); recipe=$$(cd "$$src/.." && pwd)/build-stack.sh; \
	key=$$(cat $$(ls "$$src"/* | sort) "$$recipe" | sha256sum | cut -c1-16); \
	dir="$(ROS_STACK_CACHE)/$$key"; mkdir -p "$$dir"; \
	exec 9>"$$dir.lock"; flock 9; \
	reqs=$$(sha256sum requirements-ros.txt | cut -c1-16); \
	extras=$$(for e in $(ROS_STACK_EXTRA); do [ -f "$$dir/ws/install/share/$${e#*/}/package.xml" ] || echo "$$e"; done); \
	if [ -f "$$dir/.done" ] && [ "$$(cat "$$dir/.done")" = "$$reqs" ] && [ -z "$$extras" ]; then \
		echo "ROS 2 Jazzy control stack: $$dir"; echo "$$dir/env.sh" > $(ROS_STACK_ENV); exit 0; fi; \
	log="$$dir/build.log"; : > "$$log"; \
	echo "building ROS 2 Jazzy's control stack into $$dir (once per machine; about 11 min on 2 cores; log: $$log)"; \
	steps="venv fixup"; \
	if [ ! -f "$$dir/.built" ]; then \
		rm -rf "$$dir/src"; for t in "$$src"/*.tar.xz; do tar -xJf "$$t" -C "$$dir"; done; \
		steps="venv fixup prepare build"; \
		if [ "$$(id -u)" = 0 ]; then steps="apt $$steps"; \
		elif sudo -n true 2>/dev/null; then sudo env SRC="$$dir/src" bash "$$recipe" apt; \
		else echo "note: not root: the build packages of $$recipe (step apt) must be installed"; fi; \
	fi; \
	if ! SRC="$$dir/src" REQS=$(CURDIR)/requirements-ros.txt WS="$$dir/ws" bash "$$recipe" $$steps 2>&1 \
		| $(BUILD_PROGRESS); then $(BUILD_FAILED); fi; \
	touch "$$dir/.built"; \
	SRC="$$dir/src" WS="$$dir/ws" bash "$$recipe" env > "$$dir/env.sh"; \
	for e in $(ROS_STACK_EXTRA); do \
		[ ! -f "$$dir/ws/install/share/$${e#*/}/package.xml" ] || continue; \
		rm -f "$$dir/src/$$e/COLCON_IGNORE"; \
		if ! ( . "$$dir/env.sh" && cd "$$dir/ws" && MAKEFLAGS=-j2 nice -n 10 colcon build --packages-select "$${e#*/}" \
			--base-paths "$$dir/src/$${e%/*}" --merge-install --install-base "$$dir/ws/install" \
			--build-base "$$dir/ws/build" --event-handlers console_direct- --cmake-args -DBUILD_TESTING=OFF \
			-DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$$dir/ws/venv/bin/python3" -DCMAKE_CXX_STANDARD=17 \
			"-DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed -Wl,--allow-shlib-undefined" \
			-DCMAKE_SHARED_LINKER_FLAGS=-Wl,--as-needed -DCMAKE_MODULE_LINKER_FLAGS=-Wl,--as-needed ) 2>&1 \
			| $(BUILD_PROGRESS); then $(BUILD_FAILED); fi; \
	done; \
	if ! ( . "$$dir/env.sh" && cd "$$dir/src" && \
	  pip install --quiet --no-deps $(ROS_STACK_PIP) filelock && \
	  pip install --quiet lark osrf-pycommon pyyaml psutil argcomplete packaging && \
	  SRC="$$dir/src" WS="$$dir/ws" bash "$$recipe" fixup ) >> "$$log" 2>&1; then $(BUILD_FAILED); fi; \
	echo "$$reqs" > "$$dir/.done"; \
	echo "ROS 2 Jazzy control stack: $$dir ($$(du -sh "$$dir/ws/install" | cut -f1) install, $$(du -sh "$$dir/ws/venv" | cut -f1) venv)"; \
	echo "$$dir/env.sh" > $(ROS_STACK_ENV)

# mujoco_ros2_control (ros-controls; MuJoCo under the controller_manager: sim.launch.py simulator:=mujoco) as an
# overlay on the control stack above. A sourced ROS 2 Jazzy with mujoco_ros2_control is used as it is. Otherwise it
# is built once per machine from the same source bundle into its own cache, keyed by the stack it sits on, the
# bundle, the mujoco wheel's version, MuJoCo's simulate sources and the mujoco_vendor stand-in of ros/mujoco_vendor
# (upstream's mujoco_vendor downloads MuJoCo at build time; the stand-in exports the wheel's library and headers
# under the names mujoco_ros2_control's CMakeLists uses). One MuJoCo: the wheel of requirements.txt is the version
# Jazzy's mujoco_vendor builds, and simulate/ (compiled into mujoco_ros2_control's node; no wheel has it) must be of
# that version: from a sourced Jazzy's mujoco_vendor (<prefix>/opt/mujoco_vendor/simulate), else from the bundle
# MUJOCO_SIMULATE (mujoco-<version>-simulate.tar.xz: simulate/ and MuJoCo's LICENSE). $(ROS_MUJOCO_ENV) tells the
# tests which environment to source; empty: the MuJoCo-in-ros2_control tests are skipped with one reason. Built:
# mujoco_ros2_control, its _msgs and _plugins, transmission_interface (from ros2_control) and the stand-in; not
# mujoco_3d_lidar (a test dependency of the plugins).
ROS_MUJOCO_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/snake_sea/ros-mujoco
ROS_MUJOCO_ENV := $(VENV)/.ros-mujoco-env
MUJOCO_SHIM := ros/mujoco_vendor
MUJOCO_SIMULATE ?= $(firstword $(wildcard ../shared/ros/mujoco/mujoco-*-simulate.tar.xz))
MUJOCO_DEBIAN := libglfw3-dev liblodepng-dev libegl-dev
MUJOCO_PACKAGES := src/mujoco_ros2_control src/ros2_control/transmission_interface

ros-mujoco: ros-stack | $(STAMP)
	@set -euo pipefail; \
	stack=$$(cat $(ROS_STACK_ENV)); \
	if [ "$$stack" = sourced ]; then \
		ament="$${AMENT_PREFIX_PATH:-}"; for p in $${ament//:/ }; do \
			if [ -f "$$p/share/mujoco_ros2_control/package.xml" ]; then \
				echo "using the sourced ROS 2 Jazzy's mujoco_ros2_control ($$p)"; echo sourced > $(ROS_MUJOCO_ENV); exit 0; fi; \
		done; \
		echo "note: the sourced ROS 2 Jazzy has no mujoco_ros2_control (apt install ros-jazzy-mujoco-ros2-control); the MuJoCo-in-ros2_control tests are skipped"; \
		: > $(ROS_MUJOCO_ENV); exit 0; fi; \
	if [ -z "$$stack" ]; then : > $(ROS_MUJOCO_ENV); exit 0; fi; \
	src=$$(cd "$(ROS_STACK_SRC)" && pwd); shim=$$(cd $(MUJOCO_SHIM) && pwd); \
	wheel=$$($(PY) -c "import mujoco, os; print(mujoco.__version__, os.path.dirname(mujoco.__file__))"); \
	version=$${wheel% *}; simulate=""; \
	ament="$${AMENT_PREFIX_PATH:-}"; for p in $${ament//:/ }; do \
		if [ -f "$$p/opt/mujoco_vendor/simulate/simulate.h" ]; then simulate="$$p/opt/mujoco_vendor/simulate"; break; fi; done; \
	if [ -z "$$simulate" ]; then \
		bundle="$(MUJOCO_SIMULATE)"; \
		if [ -z "$$bundle" ] || [ ! -f "$$bundle" ]; then \
			echo "note: no MuJoCo simulate sources (MUJOCO_SIMULATE=mujoco-$$version-simulate.tar.xz, or a sourced Jazzy's mujoco_vendor); the MuJoCo-in-ros2_control tests are skipped"; \
			: > $(ROS_MUJOCO_ENV); exit 0; fi; \
		case "$$(basename "$$bundle")" in mujoco-$$version-simulate.tar.xz) ;; \
			*) echo "error: $$bundle is not MuJoCo $$version's simulate (the mujoco wheel of requirements.txt): one MuJoCo version throughout" >&2; exit 2;; esac; \
		simulate=$$(cd "$$(dirname "$$bundle")" && pwd)/$$(basename "$$bundle"); fi; \
	key=$$( { echo "$$stack $$version"; cat $$(ls "$$src"/* | sort) $$(find "$$shim" "$$simulate" -type f | sort); } | sha256sum | cut -c1-16); \
	dir="$(ROS_MUJOCO_CACHE)/$$key"; mkdir -p "$$dir"; \
	exec 9>"$$dir.lock"; flock 9; \
	if [ -f "$$dir/.done" ]; then echo "mujoco_ros2_control: $$dir"; echo "$$dir/env.sh" > $(ROS_MUJOCO_ENV); exit 0; fi; \
	missing=$$(for p in $(MUJOCO_DEBIAN); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		elif sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else echo "note: not root: install $$missing for mujoco_ros2_control"; fi; fi; \
	log="$$dir/build.log"; \
	echo "building mujoco_ros2_control on the control stack into $$dir (once per machine; log: $$log)"; \
	start=$$(date +%s); rm -rf "$$dir/src" "$$dir/simulate" "$$dir/build" "$$dir/install"; : > "$$log"; \
	for t in "$$src"/*.tar.xz; do tar -xJf "$$t" -C "$$dir" $(MUJOCO_PACKAGES); done; cp -r "$$shim" "$$dir/src/"; \
	mkdir -p "$$dir/simulate"; \
	if [ -f "$$simulate" ]; then tar -xJf "$$simulate" -C "$$dir/simulate" --strip-components=1; \
	else cp -r "$$simulate" "$$dir/simulate/simulate"; fi; \
	( . "$$stack" && cd "$$dir" && MAKEFLAGS=-j2 nice -n 10 colcon build --base-paths src \
		--packages-up-to mujoco_ros2_control --packages-ignore mujoco_3d_lidar --merge-install --install-base "$$dir/install" --build-base "$$dir/build" \
		--executor sequential --event-handlers console_direct- console_cohesion+ --cmake-args -DBUILD_TESTING=OFF \
		-DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$$(command -v python3)" -DCMAKE_CXX_STANDARD=17 \
		-DMUJOCO_WHEEL_DIR="$${wheel#* }" -DMUJOCO_SIMULATE_DIR="$$dir/simulate/simulate" "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--as-needed -Wl,--allow-shlib-undefined" \
		-DCMAKE_SHARED_LINKER_FLAGS=-Wl,--as-needed -DCMAKE_MODULE_LINKER_FLAGS=-Wl,--as-needed ) 2>&1 \
		| $(BUILD_PROGRESS) || $(BUILD_FAILED); \
	{ echo ". '$$stack'"; \
	  echo "export AMENT_PREFIX_PATH='$$dir/install':\"\$$AMENT_PREFIX_PATH\" CMAKE_PREFIX_PATH='$$dir/install':\"\$$CMAKE_PREFIX_PATH\""; \
	  echo "export LD_LIBRARY_PATH='$$dir/install/lib:$$dir/install/opt/mujoco_vendor/lib':\"\$$LD_LIBRARY_PATH\""; \
	  echo "export PYTHONPATH='$$(ls -d "$$dir"/install/lib/python3.*/site-packages)':\"\$$PYTHONPATH\""; } > "$$dir/env.sh"; \
	touch "$$dir/.done"; \
	echo "mujoco_ros2_control: $$dir (built in $$(( $$(date +%s) - start )) s, $$(du -sh "$$dir/install" | cut -f1) install)"; \
	echo "$$dir/env.sh" > $(ROS_MUJOCO_ENV)

# Debian tools for tier-4 tests (check_urdf, libsdformat and a compiler for its checker) and can-utils, installed with
# apt-get as root or through sudo; skipped with a notice where apt-get is missing or we are neither root nor
# sudo-capable, and with APT=no (then not remembered: a later run without it installs them).
$(SYSSTAMP): | $(PY)
	@if [ "$(APT)" = no ]; then \
		echo "APT=no: not installing $(DEBIAN_PACKAGES); the tests that need them are skipped"; exit 0; \
	elif command -v check_urdf >/dev/null && command -v g++ >/dev/null && command -v pkg-config >/dev/null && [ -d /usr/include/sdformat-12.3 -o -n "$$(ls -d /usr/include/sdformat-* 2>/dev/null)" ]; then \
		echo "system packages present"; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBIAN_PACKAGES) >/dev/null; \
	elif command -v apt-get >/dev/null && sudo -n true 2>/dev/null; then \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBIAN_PACKAGES) >/dev/null; \
	else \
		echo "note: cannot install $(DEBIAN_PACKAGES); the tests that need them are skipped"; \
	fi && touch $@

system-deps: $(SYSSTAMP)

# The numba kernels (vertical model, head tracking) are compiled once into their on-disk cache here, so that
# no test or node process pays the compilation (tens of seconds on a loaded machine) at its first step.
build: $(STAMP)
	$(BIN)/colcon build --base-paths src --event-handlers console_direct- >/dev/null
	$(PY) -m snake_sim.commands.warm_up

demo: $(STAMP) build
	$(BIN)/snake-sim run demo --out $(DEMO_OUT)
	@echo
	@echo "Look at $(DEMO_OUT)/animation.gif, com.png, joints.png and summary.json. Next, in this shell:"
	@echo "  source $(VENV)/bin/activate   # puts snake-sim and snake-can on PATH"
	@echo "  snake-sim list              # the scenarios"
	@echo "  snake-sim run pedal-wave    # the vertical-plane crawl of the thesis' robot, writes out/pedal-wave/"
	@echo "  make ros                    # once, for the ROS nodes: ROS 2 Jazzy's rclpy and messages (wheels, no C++ build)"
	@echo "More in README.md, 'First five things to try', and docs/ros.md, 'Without ROS installed'."

# Every test, in two pytest runs: the tests beside each other on two workers, then those whose subject is real time
# (marker real_time: hardware in the loop on Jazzy's controller_manager, MuJoCo beside it) alone, after them. A
# failure in one run does not stop the other; the last lines are one summary of both (failures, skip reasons, counts).
# The real-time tests' folder: the second run collects only it (a test elsewhere with the marker is refused by
# test_makefile.py).
REAL_TIME_TESTS := src/snake_bringup/test
test: $(STAMP) $(ROSSTAMP) $(SYSSTAMP) build ros-stack ros-mujoco
	@rm -rf $(TEST_RESULTS) && mkdir -p $(TEST_RESULTS); junit="-o junit_family=xunit1 --junitxml=$(TEST_RESULTS)"; \
	$(PY) -m pytest -n 2 --dist loadgroup -q -m "not real_time" $(PYTEST_ARGS) $$junit/main.xml; main=$$?; \
	$(PY) -m pytest -q -m real_time $(PYTEST_ARGS) $$junit/real_time.xml $(REAL_TIME_TESTS); real_time=$$?; \
	$(PY) -m snake_test_support.summary $(TEST_RESULTS)/main.xml=$$main $(TEST_RESULTS)/real_time.xml=$$real_time

# The lock-stepped graph tests and the node tests of clocks and inputs beside BUSY busy-loop processes (pytest --busy),
# RUNS times in a row: what a loaded machine (a laptop building something, a shared CI runner) makes of them.
BUSY ?= 6
RUNS ?= 5
STRESS_TESTS := src/snake_control/test/test_graph.py src/snake_control/test/test_graph_faults.py \
	src/snake_control/test/test_node_safety.py src/snake_control/test/test_sea_joint_controller.py \
	src/snake_hardware/test/test_bridge.py

test-stress: $(STAMP) $(ROSSTAMP) build
	@mkdir -p $(TEST_RESULTS); status=0; for run in $$(seq $(RUNS)); do \
		echo "run $$run of $(RUNS), beside $(BUSY) busy processes"; \
		$(PY) -m pytest -q -m "not real_time" --busy $(BUSY) -o junit_family=xunit1 \
			--junitxml=$(TEST_RESULTS)/stress-$$run.xml $(PYTEST_ARGS) $(STRESS_TESTS) || status=1; \
	done; exit $$status

# The benchmarks need no C++ build: the embedded simulator, the CAN stack and the ROS loop (rclpy wheels) run as
# installed; the MuJoCo graph's figure is added where mujoco_ros2_control was built (`make ros-mujoco`, once per
# machine) or is sourced, and mujoco_bench.py says how to get it otherwise.
bench: $(STAMP) $(ROSSTAMP) build
	$(BIN)/snake-sim bench
	$(BIN)/snake-can bench
	@if $(PY) -c "import rclpy" 2>/dev/null; then $(BIN)/snake-control-bench; \
	else echo "snake-control-bench: skipped, rclpy not importable; \`make ros\` installs it"; fi
	$(BIN)/python src/snake_bringup/test/mujoco_bench.py

lint: $(STAMP)
	$(BIN)/ruff check src launch

clean:
	rm -rf build install log out
