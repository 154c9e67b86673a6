"""Import a scene's script files and build their classes, or fail with one `SceneError` line.

This is where a scene's Python runs for the first time: each file is imported once per load
(a fresh module each time, so an edited script is read again) and each `[[objects.scripts]]`
class is built with its params. There is no sandbox: a script is the user's own code.
"""

from __future__ import annotations

import copy
import importlib.util
import itertools
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Final

from sim.scene.spec import SceneError, SceneSpec, ScriptSpec
from sim.scripting.script import Script

# Each import gets a module name of its own, so two scenes (or two loads of one) never share
# module state; user dataclasses need the module in sys.modules while it runs.
MODULE_PREFIX: Final = "sim_scene_script"
_numbers = itertools.count(1)


@dataclass(frozen=True, slots=True)
class LoadedScript:
    """A built script and where it goes: the object `object_name`, from `spec` at `path`."""

    object_name: str
    spec: ScriptSpec
    path: Path
    script: Script


def load_scripts(scene: SceneSpec) -> list[LoadedScript]:
    """Import every script file of `scene` and build each object's scripts, in scene order.

    Raises:
        SceneError: One line naming the scene, the object and the script file (and the line
            where Python gives one) when a file is missing or does not import, has no such
            class, the class is not a `Script`, or it refuses its params.
    """
    modules: dict[Path, ModuleType] = {}
    loaded = []
    for obj in scene.objects:
        for spec in obj.scripts:
            where = f"{scene.path}: object {obj.name!r}: {spec.file}"
            path = spec.path_in(scene.path)
            key = path.absolute()
            if key not in modules:
                modules[key] = _import(where, path)
            kind = _script_class(where, modules[key], spec)
            script = _build(where, kind, spec, path)
            loaded.append(LoadedScript(obj.name, spec, path, script))
    return loaded


def error_line(error: BaseException, path: Path) -> int | None:
    """The line of `path` the traceback of `error` last passed through, or None.

    The deepest such frame is the user's own line, even when the error itself was raised in a
    library or in our API that line called.
    """
    wanted = path.resolve()
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.lineno is not None and _same_file(frame.filename, wanted):
            line = frame.lineno
    return line


def describe_error(error: BaseException) -> str:
    """``Type: message`` on one line (the type alone when the message is empty)."""
    message = re.sub(r"\s*\n\s*", " ", str(error)).strip()
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def _same_file(filename: str, wanted: Path) -> bool:
    try:
        return Path(filename).resolve() == wanted
    except (OSError, ValueError):
        return False


def _import(where: str, path: Path) -> ModuleType:
    try:
        found = path.is_file()
    except OSError as error:  # a name too long, a folder we may not read
        raise SceneError(f"{where}: cannot read: {error.strerror or error}") from None
    if not found:
        raise SceneError(f"{where}: no such file (looked for {path})")
    name = f"{MODULE_PREFIX}_{next(_numbers)}_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise SceneError(f"{where}: cannot be imported as a Python file")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except SyntaxError as error:  # IndentationError too
        sys.modules.pop(name, None)
        raise SceneError(f"{where}{_syntax_line(error, path)}: {_syntax(error)}") from None
    except (Exception, SystemExit) as error:
        sys.modules.pop(name, None)
        raise SceneError(f"{where}{_at_line(error, path)}: {describe_error(error)}") from None
    return module


def _syntax_line(error: SyntaxError, path: Path) -> str:
    if error.lineno is None:
        return ""
    if error.filename is None or _same_file(error.filename, path.resolve()):
        return f" line {error.lineno}"
    return f" ({Path(error.filename).name} line {error.lineno})"


def _syntax(error: SyntaxError) -> str:
    return f"{type(error).__name__}: {error.msg}"


def _at_line(error: BaseException, path: Path) -> str:
    line = error_line(error, path)
    return "" if line is None else f" line {line}"


def _script_class(where: str, module: ModuleType, spec: ScriptSpec) -> type[Script]:
    kind = getattr(module, spec.class_name, None)
    if kind is None:
        have = sorted(
            name
            for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, Script) and value is not Script
        )
        listed = (
            f" (its Script classes: {', '.join(have)})" if have else " (it has no Script class)"
        )
        raise SceneError(f"{where}: no class {spec.class_name!r}{listed}")
    if not (isinstance(kind, type) and issubclass(kind, Script)):
        raise SceneError(
            f"{where}: {spec.class_name!r} is not a Script subclass "
            "(write `class Name(Script):` after `from sim.scripting import Script`)"
        )
    return kind


def _build(where: str, kind: type[Script], spec: ScriptSpec, path: Path) -> Script:
    # A copy per object: a script that changes a list it was given changes nobody else's.
    params = copy.deepcopy(dict(spec.params))
    try:
        return kind(**params)
    except (Exception, SystemExit) as error:
        raise SceneError(
            f"{where}{_at_line(error, path)}: {spec.class_name} refused its params: "
            f"{describe_error(error)}"
        ) from None
