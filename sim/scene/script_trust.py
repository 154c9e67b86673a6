"""Whether a scene's scripts may run: only when the user allows them.

A scene's scripts are Python, run with the user's rights and no sandbox, so opening a scene
someone sent must not run them by itself. As Blender does for the scripts inside a .blend
file, they run only when the user says so, by one of:

- ``--trust-scripts`` on the command line (`sim run`, `sim soak`);
- the scene lying in a trusted folder: the scenes shipped with the project (its ``scenes/``),
  a folder named in the ``SIM_TRUSTED_FOLDERS`` environment variable (several joined with the
  path separator, ``:`` on Linux), or one listed in the settings file::

      # ~/.config/gridpath-sim/settings.toml
      [scripts]
      trusted_folders = ["~/my-scenes", "/srv/shared/scenes"]

  The settings file lives in ``$SIM_CONFIG_DIR`` when that is set, else in
  ``$XDG_CONFIG_HOME/gridpath-sim`` (``~/.config/gridpath-sim``); a relative folder in it is
  relative to the file's own folder;
- in a window, the key the scene's banner names (`sim.app.script_gate`).

Otherwise the scene runs without its scripts and says so in one line. Folders are compared
after resolving symbolic links, so a link inside a trusted folder to a file elsewhere is not
trusted.

This module imports nothing of Panda3D: the commands decide before any window opens.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sim.config import SCENES_DIR
from sim.errors import SimError
from sim.scene.spec import SceneSpec

CONFIG_DIR_VARIABLE: Final = "SIM_CONFIG_DIR"
TRUSTED_FOLDERS_VARIABLE: Final = "SIM_TRUSTED_FOLDERS"
SETTINGS_FILE: Final = "settings.toml"
APP_FOLDER: Final = "gridpath-sim"
# A settings file is a few lines; past this it is not one.
MAX_SETTINGS_BYTES: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class ScriptTrust:
    """Whether a scene's scripts run, and why.

    Attributes:
        allowed: True when they run.
        reason: Who allowed them ("--trust-scripts", "a trusted folder: ..."), or "" when
            nobody did.
    """

    allowed: bool
    reason: str = ""


UNTRUSTED: Final = ScriptTrust(allowed=False)
"""Nobody allowed the scripts (yet)."""


def settings_file(environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """Where the settings file is (it need not exist); see the module docstring."""
    env = os.environ if environ is None else environ
    if env.get(CONFIG_DIR_VARIABLE):
        return Path(env[CONFIG_DIR_VARIABLE]).expanduser() / SETTINGS_FILE
    base = env.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    return Path(base).expanduser() / APP_FOLDER / SETTINGS_FILE


def trusted_folders(environ: os._Environ[str] | dict[str, str] | None = None) -> list[Path]:
    """The folders whose scenes' scripts run: the shipped scenes', the variable's, the file's.

    Raises:
        SimError: When the settings file cannot be read or is not a settings file (one line).
    """
    env = os.environ if environ is None else environ
    folders = [SCENES_DIR]
    listed = env.get(TRUSTED_FOLDERS_VARIABLE, "")
    folders += [Path(part).expanduser() for part in listed.split(os.pathsep) if part.strip()]
    return folders + _folders_in(settings_file(env))


def decide(scene: SceneSpec, *, asked: bool) -> ScriptTrust:
    """Whether `scene`'s scripts run: `asked` (--trust-scripts) or a trusted folder.

    Raises:
        SimError: When the settings file cannot be read (only looked at for a scene that has
            scripts and was not allowed on the command line).
    """
    if asked:
        return ScriptTrust(allowed=True, reason="--trust-scripts")
    if not any(obj.scripts for obj in scene.objects):
        return ScriptTrust(allowed=False)
    where = _resolved(scene.path.parent)
    for folder in trusted_folders():
        resolved = _resolved(folder)
        if resolved is not None and where is not None and where.is_relative_to(resolved):
            return ScriptTrust(allowed=True, reason=f"a trusted folder: {folder}")
    return ScriptTrust(allowed=False)


def script_count(scene: SceneSpec) -> int:
    """How many scripts `scene` names, on all its objects."""
    return sum(len(obj.scripts) for obj in scene.objects)


def skipped_line(scene: SceneSpec) -> str:
    """The one line that says an untrusted scene runs without its scripts."""
    count = script_count(scene)
    scripts = "1 script" if count == 1 else f"{count} scripts"
    return (
        f"{scene.path}: {scripts} not run: the scene is not in a trusted folder "
        "(--trust-scripts runs them)"
    )


def _resolved(folder: Path) -> Path | None:
    try:
        return folder.resolve()
    except (OSError, RuntimeError, ValueError):  # a loop of links, a name too long
        return None


def _folders_in(path: Path) -> list[Path]:
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_SETTINGS_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as error:
        raise SimError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(raw) > MAX_SETTINGS_BYTES:
        raise SimError(f"{path}: not a settings file (over {MAX_SETTINGS_BYTES // 1024} KB)")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise SimError(f"{path}: not a settings file: {error}") from None
    scripts = data.get("scripts", {})
    listed = scripts.get("trusted_folders", []) if isinstance(scripts, dict) else None
    if not (isinstance(listed, list) and all(isinstance(item, str) for item in listed)):
        raise SimError(f"{path}: scripts.trusted_folders: expected a list of folder names")
    return [path.parent / Path(item).expanduser() for item in listed]
