"""What each named control does in a running scene: the other half of `sim.app.controls`.

`controls` says which key sends which action; this module says what the action does, so a new
feature adds its action here instead of growing the app's composition.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.app.composition import SimApp


def key_actions(app: SimApp) -> dict[str, Callable[[], None]]:
    """Every action of the controls table, bound to `app`'s parts."""
    view, menu = app.search_view, app.generator_menu
    return {
        "remove_hovered": app.editor.remove_hovered,
        "toggle_snap": app.editor.toggle_snap,
        "cycle_terrain_cost": app.cycle_terrain_cost,
        "open_generator_menu": menu.open,
        "reset_camera": app.camera.reset,
        "quit": app.base.userExit,
        "toggle_grid": app.toggle_grid,
        "toggle_blocks": app.toggle_blocks,
        "toggle_path": app.toggle_path,
        "toggle_hud": app.toggle_hud,
        "toggle_pause": app.toggle_pause,
        "reset_agents": app.reset_agents,
        "toggle_agent_mode": app.toggle_agent_mode,
        "cycle_heuristic": app.cycle_heuristic,
        "toggle_connectivity": app.toggle_connectivity,
        "cycle_diagonal_rule": lambda: app.grid.set_planning(diagonal=app.grid.rule.next),
        "toggle_search_view": view.toggle,
        "close_search_view": view.close,
        "play_pause": view.play_pause,
        "step_back": view.step_back,
        "step_forward": view.step_forward,
        "faster": view.faster,
        "slower": view.slower,
        "reset_search": view.reset,
        "search_to_end": view.to_end,
        "toggle_parent_arrows": app.toggle_parent_arrows,
        "toggle_search_numbers": app.toggle_search_numbers,
        "toggle_compare": app.search_panel.toggle_compare,
        "toggle_crowd_gizmos": app.crowd_render.toggle_gizmos,
    }
