"""Python message classes that behave like rosidl_generator_py's, for machines without ROS.

The classes are generated from the message definitions that ``rosbags`` bundles for ROS 2 Jazzy,
so field names, types, defaults and constants are those of the real packages. They mirror the
checks of the generated code that catch real bugs before a node meets real rclpy:

- the constructor takes keyword arguments only and refuses unknown ones (``AssertionError``);
- ``__slots__``: assigning a misspelt field raises ``AttributeError``;
- a ``float64`` field refuses an ``int`` (``msg.data = 1`` fails in rclpy too), ``byte`` fields
  take ``bytes`` (``DiagnosticStatus.ERROR == b'\\x02'``), nested fields take the right class,
  unbounded numeric sequences take a sequence of Python numbers (not a numpy array: convert with
  ``.tolist()``), fixed-size numeric arrays are stored as numpy arrays (``Odometry.pose.covariance``).
"""

from __future__ import annotations

import math
import types
from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar

import numpy as np
from rosbags.typesys import Stores, get_typestore
from rosbags.typesys.base import Nodetype

FLOAT64_MAX = 1.7976931348623157e308
FLOAT_TYPES = ("float32", "float64")
INT_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "octet")
#: rosidl names of the IDL base types, as ``get_fields_and_field_types`` reports them.
IDL_NAMES = {"float32": "float", "float64": "double", "byte": "octet", "char": "uint8"}
NUMPY_DTYPES = {"float32": np.float32, "float64": np.float64, "int8": np.int8, "uint8": np.uint8,
                "int16": np.int16, "uint16": np.uint16, "int32": np.int32, "uint32": np.uint32,
                "int64": np.int64, "uint64": np.uint64}


def _default(desc: tuple, registry: dict[str, type]) -> Any:
    kind, rest = desc
    if kind == Nodetype.BASE:
        base = rest[0]
        if base in FLOAT_TYPES:
            return 0.0
        if base == "bool":
            return False
        if base == "string":
            return ""
        if base == "byte":
            return b"\x00"
        return 0
    if kind == Nodetype.NAME:
        return registry[rest]()
    (elem_kind, elem), size = rest
    if kind == Nodetype.ARRAY:
        if elem_kind == Nodetype.BASE and elem[0] in NUMPY_DTYPES:
            return np.zeros(size, dtype=NUMPY_DTYPES[elem[0]])
        return [_default((elem_kind, elem), registry) for _ in range(size)]
    return []


def _check_scalar(base: str, value: Any) -> bool:
    if base in FLOAT_TYPES:
        return isinstance(value, float) and (not math.isfinite(value) or abs(value) <= FLOAT64_MAX)
    if base == "bool":
        return isinstance(value, bool)
    if base == "string":
        return isinstance(value, str)
    if base == "byte":
        return isinstance(value, bytes) and len(value) == 1
    if base == "char":
        return isinstance(value, (str, int)) and not isinstance(value, bool)
    return isinstance(value, int) and not isinstance(value, bool)


def _python_name(base: str) -> str:
    return {"float32": "float", "float64": "float", "string": "str", "byte": "bytes"}.get(base, "int")


def _coerce(field: str, desc: tuple, value: Any, registry: dict[str, type]) -> Any:
    """Check ``value`` for ``field`` as rosidl_generator_py does; return what gets stored."""
    kind, rest = desc
    if kind == Nodetype.BASE:
        assert _check_scalar(rest[0], value), f"The '{field}' field must be of type '{_python_name(rest[0])}'"
        return value
    if kind == Nodetype.NAME:
        cls = registry[rest]
        assert isinstance(value, cls), f"The '{field}' field must be a sub message of type '{cls.__name__}'"
        return value
    (elem_kind, elem), size = rest
    if kind == Nodetype.ARRAY and elem_kind == Nodetype.BASE and elem[0] in NUMPY_DTYPES:
        arr = np.asarray(value)
        assert arr.shape == (size,), f"The '{field}' field must be a sequence with length {size}"
        return arr.astype(NUMPY_DTYPES[elem[0]])
    assert isinstance(value, Sequence) and not isinstance(value, (str, bytes)), (
        f"The '{field}' field must be a sequence (a list; convert numpy arrays with .tolist())")
    if kind == Nodetype.ARRAY:
        assert len(value) == size, f"The '{field}' field must be a sequence with length {size}"
    if size and kind == Nodetype.SEQUENCE:
        assert len(value) <= size, f"The '{field}' field must be a sequence with length <= {size}"
    if elem_kind == Nodetype.BASE:
        assert all(_check_scalar(elem[0], v) for v in value), (
            f"The '{field}' field must be a set or sequence and each value of type '{_python_name(elem[0])}'")
    else:
        cls = registry[elem]
        assert all(isinstance(v, cls) for v in value), (
            f"The '{field}' field must be a set or sequence and each value of type '{cls.__name__}'")
    return list(value)


def _idl_type(desc: tuple) -> str:
    kind, rest = desc
    if kind == Nodetype.BASE:
        return IDL_NAMES.get(rest[0], rest[0])
    if kind == Nodetype.NAME:
        pkg, _, name = rest.split("/")
        return f"{pkg}/{name}"
    (elem_kind, elem), size = rest
    inner = _idl_type((elem_kind, elem))
    if kind == Nodetype.ARRAY:
        return f"{inner}[{size}]"
    return f"sequence<{inner}, {size}>" if size else f"sequence<{inner}>"


class _Message:
    """Base of the generated classes (the field table is set per class)."""

    __slots__ = ()
    _FIELDS: tuple[tuple[str, tuple], ...] = ()
    _FIELD_MAP: ClassVar[dict[str, tuple]] = {}
    _REGISTRY: ClassVar[dict[str, type]] = {}

    def __init__(self, **kwargs: Any) -> None:
        names = [f for f, _ in self._FIELDS]
        assert all(k in names for k in kwargs), (
            "Invalid arguments passed to constructor: " + ", ".join(sorted(set(kwargs) - set(names))))
        for name, desc in self._FIELDS:
            if name in kwargs:
                setattr(self, name, kwargs[name])
            else:
                object.__setattr__(self, name, _default(desc, self._REGISTRY))

    def __setattr__(self, name: str, value: Any) -> None:
        desc = self._FIELD_MAP.get(name)
        if desc is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        object.__setattr__(self, name, _coerce(name, desc, value, self._REGISTRY))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        for name, _ in self._FIELDS:
            a, b = getattr(self, name), getattr(other, name)
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                if not np.array_equal(a, b):
                    return False
            elif a != b:
                return False
        return True

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name, _ in self._FIELDS)
        return f"{type(self).__module__.split('.')[0]}.msg.{type(self).__name__}({inner})"

    @classmethod
    def get_fields_and_field_types(cls) -> dict[str, str]:
        return {name: _idl_type(desc) for name, desc in cls._FIELDS}


def message_classes(store: Stores = Stores.ROS2_JAZZY) -> dict[str, type]:
    """``'pkg/msg/Name'`` → generated class, for every message type ``rosbags`` knows for ``store``
    (built once per store, so every caller shares the same classes)."""
    return _message_classes(store)


@cache
def _message_classes(store: Stores) -> dict[str, type]:
    typestore = get_typestore(store)
    registry: dict[str, type] = {}
    for typename, (consts, fields) in typestore.fielddefs.items():
        pkg, kind, name = typename.split("/")
        namespace: dict[str, Any] = {
            "__slots__": tuple(f for f, _ in fields),
            "__module__": f"{pkg}.{kind}",
            "__qualname__": name,
            "_FIELDS": tuple(fields),
            "_FIELD_MAP": dict(fields),
            "_REGISTRY": registry,
            "_TYPE_NAME": typename,
        }
        for cname, ctype, cvalue in consts:
            namespace[cname] = bytes([cvalue]) if ctype == "byte" else cvalue
        registry[typename] = type(name, (_Message,), namespace)
    return registry


@cache
def message_modules(store: Stores = Stores.ROS2_JAZZY) -> dict[str, types.ModuleType]:
    """Modules ``pkg`` and ``pkg.msg`` to put into ``sys.modules`` (built once per store)."""
    return _message_modules(store)


@cache
def _message_modules(store: Stores) -> dict[str, types.ModuleType]:
    modules: dict[str, types.ModuleType] = {}
    for typename, cls in message_classes(store).items():
        pkg, kind, name = typename.split("/")
        if pkg not in modules:
            modules[pkg] = types.ModuleType(pkg, f"test double of the ROS 2 package {pkg}")
        sub = f"{pkg}.{kind}"
        if sub not in modules:
            modules[sub] = types.ModuleType(sub)
            setattr(modules[pkg], kind, modules[sub])
        setattr(modules[sub], name, cls)
    return modules


def type_name(msg_type: type) -> str:
    """``'sensor_msgs/msg/JointState'`` for a message class, real (rosidl) or generated here."""
    return f"{msg_type.__module__.split('.')[0]}/msg/{msg_type.__name__}"
