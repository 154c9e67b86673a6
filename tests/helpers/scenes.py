"""Scene text and saved-scene states the scene tests share.

`GRID_10` is the head of the small hand-written scenes (a 10 x 10 grid of unit cells at the
origin) that tests append their objects to; `copied` and `app_states` stand for an app that
loaded a scene file and changed some component settings before Ctrl+S.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from sim.scene.file import load_scene
from sim.scene.merge import MergeBase, ObjectState, Setting
from sim.scene.spec import SceneSpec

GRID_10 = """\
version = 1

[grid]
origin = [0.0, 0.0]
rows = 10
columns = 10
cell_size = 1.0
"""


def copied(scene: Path, tmp_path: Path) -> tuple[Path, SceneSpec, MergeBase]:
    """A copy of `scene` in `tmp_path`, loaded, and the merge base the app keeps for it."""
    path = Path(shutil.copy(scene, tmp_path / scene.name))
    loaded = load_scene(path)
    return path, loaded, MergeBase.loaded(loaded)


def app_states(loaded: SceneSpec, **settings: dict[str, Setting]) -> list[ObjectState]:
    """The loaded objects, with the settings given by name changed."""
    states = []
    for obj in loaded.listed_objects:
        state = ObjectState.from_spec(obj)
        if obj.name in settings:
            merged = {**dict(state.settings), **settings[obj.name]}
            state = dataclasses.replace(state, settings=tuple(merged.items()))
        states.append(state)
    return states
