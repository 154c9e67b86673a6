"""Ctrl+S writes the component settings the inspector changed, and only those (no window)."""

from __future__ import annotations

import pytest

from sim.scene.file import list_scenes, load_scene
from sim.scene.merge import MergeBase, Setting, spec_settings
from sim.scene.writer import SceneSaveError, save_scene
from tests.helpers.scenes import app_states, copied

TERRAIN_SCENE = next(path for path in list_scenes() if path.stem == "terrain")
DEFAULT_SCENE = next(path for path in list_scenes() if path.stem == "default")


def test_a_terrain_cost_and_agent_settings_changed_in_the_app_are_written(tmp_path):
    path, loaded, base = copied(TERRAIN_SCENE, tmp_path)
    before = path.read_text(encoding="utf-8")
    changes: dict[str, dict[str, Setting]] = {
        "mud": {"terrain.cost": 7.0},
        "agent": {"agent.speed": 4.5, "agent.mode": "patrol"},
    }
    save_scene(path, app_states(loaded, **changes), base=base)
    saved = load_scene(path)
    mud, agent = saved.find("mud"), saved.find("agent")
    assert mud is not None
    assert agent is not None
    assert agent.agent is not None
    assert mud.terrain_cost == 7.0
    assert (agent.agent.speed, str(agent.agent.mode)) == (4.5, "patrol")
    after = path.read_text(encoding="utf-8")
    assert "cost = 4.0  # a cell of mud" not in after
    assert "cost = 7.0  # a cell of mud costs 4 plain cells to enter" in after, "comment kept"
    changed = [line for line in after.splitlines() if line not in before.splitlines()]
    assert sorted(changed) == sorted(
        [
            "cost = 7.0  # a cell of mud costs 4 plain cells to enter",
            "speed = 4.5",
            'mode = "patrol"',
        ]
    )


def test_an_agent_without_an_agent_table_gets_one_before_the_next_comment(tmp_path):
    text = DEFAULT_SCENE.read_text(encoding="utf-8")
    table = text[text.index("\n[objects.agent]\n") : text.index("\nsmoothing = true\n") + 17]
    path = tmp_path / "default.toml"
    path.write_text(text.replace(table, ""), encoding="utf-8")
    loaded = load_scene(path)
    save_scene(path, app_states(loaded, agent={"agent.radius": 0.3}), base=MergeBase.loaded(loaded))
    agent = load_scene(path).find("agent")
    assert agent is not None
    assert agent.agent is not None
    assert agent.agent.radius == 0.3
    after = path.read_text(encoding="utf-8")
    assert after.index("radius = 0.3") < after.index("# --- obstacles")


def test_unchanged_settings_write_nothing(tmp_path):
    path, loaded, base = copied(TERRAIN_SCENE, tmp_path)
    before = path.read_bytes()
    save_scene(path, app_states(loaded), base=base)
    assert path.read_bytes() == before


def test_a_setting_changed_on_disk_and_differently_in_the_app_is_refused(tmp_path):
    path, loaded, base = copied(TERRAIN_SCENE, tmp_path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("cost = 4.0", "cost = 6.0"), encoding="utf-8")
    with pytest.raises(SceneSaveError, match="mud"):
        save_scene(path, app_states(loaded, mud={"terrain.cost": 7.0}), base=base)


def test_a_setting_changed_only_on_disk_stays(tmp_path):
    path, loaded, base = copied(TERRAIN_SCENE, tmp_path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("cost = 4.0", "cost = 6.0"), encoding="utf-8")
    save_scene(path, app_states(loaded, agent={"agent.speed": 2.0}), base=base)
    saved = load_scene(path)
    mud = saved.find("mud")
    assert mud is not None
    assert mud.terrain_cost == 6.0


def test_spec_settings_name_each_setting_by_its_scene_key():
    loaded = load_scene(TERRAIN_SCENE)
    mud, agent = loaded.find("mud"), loaded.find("agent")
    assert mud is not None
    assert agent is not None
    assert spec_settings(mud) == (("terrain.cost", 4.0),)
    assert dict(spec_settings(agent))["agent.mode"] == "chase"


def test_agent_motion_settings_are_written_as_the_file_reads_them(tmp_path):
    path, loaded, base = copied(TERRAIN_SCENE, tmp_path)
    motion: dict[str, Setting] = {
        "agent.acceleration": 6.0,
        "agent.auto_braking": False,
        "agent.avoidance_priority": 20,
        "agent.areas": ("walkable",),
    }
    save_scene(path, app_states(loaded, agent=motion), base=base)
    text = path.read_text(encoding="utf-8")
    assert "auto_braking = false" in text
    assert "avoidance_priority = 20\n" in text
    assert 'areas = ["walkable"]' in text
    written = load_scene(path)
    agent = written.find("agent")
    assert agent is not None
    assert agent.agent is not None
    assert dict(spec_settings(agent)) | motion == dict(spec_settings(agent))
    # Back to every area: the key goes, as a file that never had it says.
    again = MergeBase.loaded(written)
    save_scene(path, app_states(written, agent={"agent.areas": None}), base=again)
    assert "areas" not in path.read_text(encoding="utf-8")
    reloaded = load_scene(path).find("agent")
    assert reloaded is not None
    assert reloaded.agent is not None
    assert reloaded.agent.areas is None
