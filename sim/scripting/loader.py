"""Import a scene's script files and build their classes, or fail with one `SceneError` line.

This is where a scene's Python runs for the first time: each file is imported once per load
(a fresh module each time, so an edited script is read again) and each `[[objects.scripts]]`
class is built with its params. There is no sandbox: a script is the user's own code.
"""

from __future__ import annotations

import copy
import difflib
import importlib.util
import inspect
import itertools
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Final

from sim.errors import Interrupted
from sim.scene.spec import SceneError, SceneSpec, ScriptSpec
from sim.scripting.script import Script

# Each import gets a module name of its own, so two scenes (or two loads of one) never share
# module state; user dataclasses need the module in sys.modules while it runs.
MODULE_PREFIX: Final = "sim_scene_script"
_numbers = itertools.count(1)
# An error's message is cut to this many characters before anything else reads it: a script
# may raise one of megabytes, and the HUD, the report and stdout each get a copy.
MAX_MESSAGE_CHARS: Final = 300
# The hooks the runner calls, by name; a method named close to one is most likely a typo.
HOOKS: Final = ("awake", "start", "update", "on_draw_gizmos", "on_destroy")


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
            _check_inside(where, path, scene.path.parent)
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
    """``Type: message`` on one line (the type alone when the message is empty).

    The message is cut to `MAX_MESSAGE_CHARS` first, so a huge one costs no more than a short
    one; a message that cannot be made (its `__str__` raises) is said to be so.

    >>> describe_error(ValueError("a" + chr(10) + "  b"))
    'ValueError: a b'
    >>> len(describe_error(ValueError("x" * 10**6))) < 350
    True
    """
    try:
        text = str(error)
    except Exception:  # the script's own __str__
        text = "(its message could not be read)"
    cut = len(text) > MAX_MESSAGE_CHARS
    message = re.sub(r"\s*\n\s*", " ", text[:MAX_MESSAGE_CHARS]).strip()
    if cut:
        message += f"... ({len(text):,} characters)"
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def hook_warnings(loaded: list[LoadedScript], scene_path: Path) -> list[str]:
    """One line per method that looks like a hook but is never called, with a did-you-mean.

    Unity's casing (`Update`, `OnDestroy`), near misses (`updat`) and hooks written as
    `async def` or generators (their body would never run) are each named once per class.
    """
    lines = []
    seen: set[type[Script]] = set()
    for item in loaded:
        kind = type(item.script)
        if kind in seen:
            continue
        seen.add(kind)
        where = f"{scene_path}: object {item.object_name!r}: {item.spec.file}"
        for name, problem in _hook_problems(kind):
            lines.append(f"{where}: {kind.__name__}.{name} {problem}")
    return lines


def _hook_problems(kind: type[Script]) -> list[tuple[str, str]]:
    problems = []
    for owner in kind.__mro__:
        if owner in (Script, object):
            continue
        for name, value in vars(owner).items():
            if not callable(value) or name.startswith("__"):
                continue
            if name in HOOKS:
                if inspect.iscoroutinefunction(value) or inspect.isasyncgenfunction(value):
                    problems.append((name, f"is async def: it would never run (write def {name})"))
                elif inspect.isgeneratorfunction(value):
                    problems.append((name, "yields: its body would never run (return instead)"))
                continue
            snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
            close = difflib.get_close_matches(snake, HOOKS, n=1, cutoff=0.85)
            if close:
                problems.append((name, f"is never called: did you mean {close[0]}?"))
    return problems


def _check_inside(where: str, path: Path, folder: Path) -> None:
    """Refuse a script file outside the scene's folder, before any of its code runs."""
    try:
        inside = path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError, ValueError):  # a loop of links, a name too long
        inside = False
    if not inside:
        raise SceneError(f"{where}: a script file must lie inside the scene's folder ({folder})")


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
    except Interrupted:
        sys.modules.pop(name, None)
        raise
    except BaseException as error:  # the script's own SystemExit or KeyboardInterrupt too
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
    except Interrupted:
        raise
    except BaseException as error:
        raise SceneError(
            f"{where}{_at_line(error, path)}: {spec.class_name} refused its params: "
            f"{describe_error(error)}"
        ) from None
