"""What each named control does in a running scene: the other half of `sim.app.controls`.

`controls` says which key sends which action; this module says what the action does, so a new
feature adds its action here instead of growing the app's composition. Opening and closing a
mode (the search view, the race, the generator menu, a field's typing) is a request to the mode
owner (`sim.app.modes`), and the search view's keys go to the race in the Race mode (`route`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from sim.app.modes import GENERATOR_MENU, INSPECTOR_TYPING, SCENE, SEARCH_VIEW
from sim.components.grid_manager import HEURISTICS
from sim.editor.inspector import TURN_DEG

if TYPE_CHECKING:
    from sim.app.modes import Modes
    from sim.components.agent_controller import AgentController
    from sim.components.crowd_render import CrowdRenderer
    from sim.components.grid_manager import GridManager
    from sim.editor.editor import SceneEditor
    from sim.editor.inspector import Inspector
    from sim.engine.camera import OrbitCamera
    from sim.search_view.panel import SearchPanel
    from sim.search_view.race_view import RaceView
    from sim.search_view.view import SearchView


def key_actions(
    scene: Mapping[str, Callable[[], None]],
    *,
    modes: Modes,
    editor: SceneEditor,
    camera: OrbitCamera,
    quit_app: Callable[[], None],
    grid: GridManager,
    view: SearchView,
    panel: SearchPanel,
    lanes: RaceView,
    crowd_render: CrowdRenderer,
    inspector: Inspector,
    agents: Sequence[AgentController],
) -> dict[str, Callable[[], None]]:
    """Every action of the controls table: `scene`'s, the app's own toggles by name, and the parts'.

    `bind_controls` checks the whole against the table: none missing, none extra. Changing the
    heuristic or the moves gives the grid a new `version`, so the path and the agents replan on
    the next world step; a terrain cost changed by hand makes them replan at once
    (`SceneEditor.cycle_terrain_cost`), as a patch moving by itself would not.
    """
    routed = modes.route

    def toggle_parent_arrows() -> None:
        view.show_parents = not view.show_parents

    def toggle_search_numbers() -> None:
        view.show_numbers = not view.show_numbers

    def toggle_blocks() -> None:
        grid.show_obstacle_blocks = not grid.show_obstacle_blocks

    def toggle_agent_mode() -> None:
        for agent in agents:
            agent.toggle_mode()

    def cycle_heuristic() -> None:
        following = (HEURISTICS.index(grid.heuristic) + 1) % len(HEURISTICS)
        grid.set_planning(heuristic=HEURISTICS[following])

    return {
        **scene,
        "toggle_blocks": toggle_blocks,
        "toggle_agent_mode": toggle_agent_mode,
        "cycle_heuristic": cycle_heuristic,
        "cycle_terrain_cost": editor.cycle_terrain_cost,
        "toggle_search_numbers": toggle_search_numbers,
        "remove_hovered": editor.remove_hovered,
        "toggle_snap": editor.toggle_snap,
        "open_generator_menu": lambda: modes.request(GENERATOR_MENU),
        "reset_camera": camera.reset,
        "quit": quit_app,
        "cycle_diagonal_rule": lambda: grid.set_planning(diagonal=grid.rule.next),
        "toggle_search_view": lambda: modes.request(SEARCH_VIEW),
        "toggle_race": modes.toggle_race,
        "close_search_view": lambda: modes.request(SCENE),
        "play_pause": routed(view.play_pause, lanes.play_pause),
        "step_back": routed(view.step_back, lanes.step_back),
        "step_forward": routed(view.step_forward, lanes.step_forward),
        "faster": routed(view.faster, lanes.faster),
        "slower": routed(view.slower, lanes.slower),
        "reset_search": routed(view.reset, lanes.reset),
        "search_to_end": routed(view.to_end, lanes.to_end),
        "toggle_parent_arrows": routed(toggle_parent_arrows, lanes.toggle_parents),
        "toggle_compare": routed(panel.toggle_compare, lambda: None),
        "toggle_crowd_gizmos": crowd_render.toggle_gizmos,
        "rotate_left": lambda: inspector.rotate(-TURN_DEG),
        "rotate_right": lambda: inspector.rotate(TURN_DEG),
        "nudge_left": lambda: inspector.nudge(-1, 0),
        "nudge_right": lambda: inspector.nudge(1, 0),
        "nudge_up": lambda: inspector.nudge(0, 1),
        "nudge_down": lambda: inspector.nudge(0, -1),
        "inspect_fields": lambda: modes.request(INSPECTOR_TYPING),
    }
