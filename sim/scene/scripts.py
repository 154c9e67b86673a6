"""Read an object's `[[objects.scripts]]` tables: which user `Script` classes it carries.

Part of the scene schema (`sim.scene.file` calls `read_scripts` for each object). A table names
a Python file relative to the scene file, a class in it and the class's keyword arguments:

    [[objects.scripts]]
    file = "scripts/orbit.py"
    class = "Orbit"
    [objects.scripts.params]
    radius = 3.0

Only what the scene file says is checked here (the keys and their types), not the script file:
that is found, imported and run by `sim.scripting.loader` when the app opens the scene, never
while a scene is read (`sim compare` and a save read scenes too, and a scene copied without its
scripts still reads).
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Final

from sim.scene import values
from sim.scene.spec import ScriptSpec
from sim.scene.values import Reader, Table

SCRIPT_KEYS: Final = ("file", "class", "params")
SCRIPT_SUFFIX: Final = ".py"
# More scripts than this on one object is a program, not a scene.
MAX_SCRIPTS: Final = 100


def read_scripts(at: Reader, table: Table) -> tuple[ScriptSpec, ...]:
    """Read the object's `scripts` array of tables (none when the key is absent).

    Args:
        at: The object's key path (``objects[3]``); its source is the scene file, which the
            script files are relative to.
        table: The object's table.
    """
    return table.get("scripts", _scripts, ())


def _scripts(at: Reader, value: object) -> tuple[ScriptSpec, ...]:
    if not isinstance(value, list | tuple):
        raise at.error(
            f"expected an array of tables ([[objects.scripts]]), got {values.describe(value)}"
        )
    if len(value) > MAX_SCRIPTS:
        raise at.error(f"at most {MAX_SCRIPTS} scripts on one object, got {len(value)}")
    return tuple(_script(at.at(index), item) for index, item in enumerate(value))


def _script(at: Reader, value: object) -> ScriptSpec:
    table = Table(at, value, SCRIPT_KEYS)
    file = table.get("file", _script_file)
    class_name = table.get("class", _class_name)
    no_params: Mapping[str, object] = {}
    params = table.get("params", _params, no_params)
    return ScriptSpec(file, class_name, params)


def _script_file(at: Reader, value: object) -> str:
    """A Python file's name, relative to the scene file (the loader checks it is there)."""
    file = values.non_empty_string(at, value)
    if not file.endswith(SCRIPT_SUFFIX):
        raise at.error(
            f"expected a Python file ending in {SCRIPT_SUFFIX}, got {values.short(file)}"
        )
    if "\0" in file:
        raise at.error(f"a file name cannot hold a NUL, got {values.short(file)}")
    return file


def _class_name(at: Reader, value: object) -> str:
    name = values.non_empty_string(at, value)
    if not name.isidentifier() or keyword.iskeyword(name):
        raise at.error(f"expected a Python class name, got {values.short(name)}")
    return name


def _params(at: Reader, value: object) -> Mapping[str, object]:
    """The class's keyword arguments: a table whose keys are Python names."""
    if not isinstance(value, Mapping):
        raise at.error(f"expected a table ([objects.scripts.params]), got {values.describe(value)}")
    for key in value:
        if not (isinstance(key, str) and key.isidentifier() and not keyword.iskeyword(key)):
            raise at.at(str(key)).error("expected a Python name (a keyword argument of the class)")
    return dict(value)
