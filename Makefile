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
#: sros2 (SROS2 keystores) has no wheel: it is installed from the Jazzy source bundle when present.
SROS2_SOURCE ?= ../shared/ros/src/jazzy-stack-src.tar.xz

.PHONY: all install ros system-deps build demo test bench lint clean

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
	$(PY) -m snake_sim.warm_up

demo: $(STAMP) build
	$(BIN)/snake-sim run $$($(PY) -c "from snake_sim.scenario import DEFAULT_SCENARIO as s, DEFAULT_OVERRIDES as o; \
		print(s, *(f'--set {v}' for v in o))") --out $(DEMO_OUT)
	@echo
	@echo "Look at $(DEMO_OUT)/animation.gif, com.png, joints.png and summary.json. Next, in this shell:"
	@echo "  source $(VENV)/bin/activate   # puts snake-sim and snake-can on PATH"
	@echo "  snake-sim list              # the scenarios"
	@echo "  snake-sim run pedal-wave    # the vertical-plane crawl of the thesis' robot, writes out/pedal-wave/"
	@echo "More in README.md, 'First five things to try'."

test: $(STAMP) $(ROSSTAMP) $(SYSSTAMP) build
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q $(PYTEST_ARGS)

bench: $(STAMP) $(ROSSTAMP)
	$(BIN)/snake-sim bench
	$(BIN)/snake-can bench
	$(BIN)/snake-control-bench

lint: $(STAMP)
	$(BIN)/ruff check src launch

clean:
	rm -rf build install log out
