"""The HUD's line about the agent's last replan."""

from types import SimpleNamespace
from typing import Any

from sim.app.hud_text import replan_line
from sim.components.agent_controller import ReplanCause
from sim.components.grid_manager import PlanOutcome


def agent(outcome: PlanOutcome) -> Any:
    return SimpleNamespace(outcome=outcome, last_cause=ReplanCause.PATH_CUT)


def test_a_repair_is_compared_with_a_fresh_search() -> None:
    outcome = PlanOutcome(found=True, expanded=31, repaired=True, fresh_expanded=412)
    line = replan_line(agent(outcome))
    assert line == "  last replan (cut): repaired, 31 expanded (fresh A*: 412)"


def test_a_plan_without_any_search_says_so_instead_of_zero_against_zero() -> None:
    outcome = PlanOutcome(found=False, reason="unreachable", expanded=0, fresh_expanded=0)
    assert replan_line(agent(outcome)) == "  last replan (cut): answered without a search"


def test_no_line_without_a_comparison() -> None:
    assert replan_line(agent(PlanOutcome(found=True, expanded=5))) is None
