"""FrameLoop on a real TaskManager and a non-real-time ClockObject (no window, no ShowBase)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from direct.task.Task import TaskManager
from panda3d.core import AsyncTaskManager, ClockObject, NodePath

from sim.engine import Component, FrameLoop, Gizmos, World
from sim.engine.loop import Phase

MakeClock = Callable[[float], ClockObject]


class DtLog(Component):
    """Records every dt it is updated with."""

    def __init__(self) -> None:
        super().__init__()
        self.dts: list[float] = []

    def update(self, dt: float) -> None:
        self.dts.append(dt)


class Wanderer(Component):
    """Deterministic mover: turns by a dt-dependent amount and walks forward."""

    def update(self, dt: float) -> None:
        obj = self.game_object
        obj.heading = (obj.heading + 90.0 * dt + 0.37 * obj.pos.x) % 360.0
        obj.node.set_pos(obj.node, 0.0, 2.5 * dt, 0.0)


class GizmoCounter(Component):
    def __init__(self) -> None:
        super().__init__()
        self.draws = 0

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        self.draws += 1
        gizmos.polyline("trail", [(0, 0, 0), (1, 0, 0)], (1, 0, 0, 1))


@pytest.fixture
def task_mgr() -> Iterator[TaskManager]:
    """A TaskManager on a private AsyncTaskManager, so no task leaks into ShowBase's one."""
    manager = TaskManager()
    manager.mgr = AsyncTaskManager("engine-loop-tests")
    yield manager
    manager.destroy()


@pytest.fixture
def make_clock(task_mgr: TaskManager) -> MakeClock:
    """Headless clock at `fps`, ticked once per task_mgr.step() as the graphics engine would."""

    def _make(fps: float) -> ClockObject:
        clock = ClockObject(ClockObject.M_non_real_time)
        clock.set_frame_rate(fps)
        task_mgr.setClock(clock)
        task_mgr.setupTaskChain("default", tickClock=True)
        return clock

    return _make


def run_frames(task_mgr: TaskManager, frames: int) -> None:
    for _ in range(frames):
        task_mgr.step()


def test_non_real_time_clock_gives_exact_dt() -> None:
    clock = ClockObject(ClockObject.M_non_real_time)
    clock.set_frame_rate(60)
    for _ in range(3):
        assert clock.get_dt() == 1 / 60
        clock.tick()


def test_fixed_step_at_matching_frame_rate_is_one_step_of_exact_dt_per_frame(
    task_mgr: TaskManager, make_clock: MakeClock
) -> None:
    world = World(NodePath("root"))
    log = world.spawn("log").add_component(DtLog())
    FrameLoop(world, make_clock(60), fixed_dt=1 / 60).attach(task_mgr)
    run_frames(task_mgr, 120)
    assert world.frame_count == 120
    assert log.dts == [1 / 60] * 120


def wander(task_mgr: TaskManager, clock: ClockObject, frames: int) -> list[tuple[float, ...]]:
    world = World(NodePath("root"))
    walkers = [world.spawn(f"w{i}") for i in range(3)]
    for i, walker in enumerate(walkers):
        walker.pos = (float(i), 0.0, 0.0)
        walker.add_component(Wanderer())
    loop = FrameLoop(world, clock, fixed_dt=1 / 60)
    loop.attach(task_mgr)
    run_frames(task_mgr, frames)
    loop.detach()
    return [(*w.pos, w.heading) for w in walkers]


def test_two_runs_of_the_same_scenario_are_bit_identical(
    task_mgr: TaskManager, make_clock: MakeClock
) -> None:
    first = wander(task_mgr, make_clock(60), 300)
    second = wander(task_mgr, make_clock(60), 300)
    assert first == second
    assert first[0] != (0.0, 0.0, 0.0, 0.0), "the walkers moved"


@pytest.mark.parametrize(
    ("fps", "fixed_dt", "frames", "steps"),
    [(30, 1 / 60, 10, 20), (60, 1 / 30, 10, 5), (60, 1 / 120, 10, 20)],
    ids=["two-steps-per-frame", "step-every-other-frame", "halved-dt"],
)
def test_accumulator_runs_whole_steps(
    task_mgr: TaskManager,
    make_clock: MakeClock,
    fps: float,
    fixed_dt: float,
    frames: int,
    steps: int,
) -> None:
    world = World(NodePath("root"))
    log = world.spawn("log").add_component(DtLog())
    loop = FrameLoop(world, make_clock(fps), fixed_dt=fixed_dt)
    loop.attach(task_mgr)
    run_frames(task_mgr, frames)
    assert world.frame_count == steps
    assert set(log.dts) == {fixed_dt}
    assert loop.dropped_s == 0.0


def test_slow_frames_are_capped_and_the_excess_dropped(
    task_mgr: TaskManager, make_clock: MakeClock
) -> None:
    world = World(NodePath("root"))
    # 6 fps = 10 fixed steps of 1/60 per frame; the cap allows 5.
    loop = FrameLoop(world, make_clock(6), fixed_dt=1 / 60, max_steps_per_frame=5)
    loop.attach(task_mgr)
    run_frames(task_mgr, 3)
    assert world.frame_count == 15
    assert loop.dropped_s == pytest.approx(3 * 5 / 60)


def test_variable_step_uses_clock_dt_times_time_scale(
    task_mgr: TaskManager, make_clock: MakeClock
) -> None:
    world = World(NodePath("root"))
    log = world.spawn("log").add_component(DtLog())
    loop = FrameLoop(world, make_clock(60))
    loop.time_scale = 0.5
    loop.attach(task_mgr)
    run_frames(task_mgr, 4)
    assert log.dts == [0.5 / 60] * 4


def test_pause_stops_steps_but_gizmos_flush_and_destroys_finish(
    task_mgr: TaskManager, make_clock: MakeClock
) -> None:
    world = World(NodePath("root"))
    gizmos = Gizmos(NodePath("gizmo-root"))
    counter = world.spawn("counter").add_component(GizmoCounter())
    doomed = world.spawn("doomed")
    loop = FrameLoop(world, make_clock(60), gizmos=gizmos, fixed_dt=1 / 60)
    loop.attach(task_mgr)
    run_frames(task_mgr, 2)
    loop.paused = True
    doomed.destroy()
    run_frames(task_mgr, 5)
    assert world.frame_count == 2
    assert counter.draws == 7
    assert gizmos.keys() == {"trail"}
    assert gizmos.rebuild_count("trail") == 1
    assert world.find("doomed") is None
    loop.paused = False
    run_frames(task_mgr, 1)
    assert world.frame_count == 3


def test_attach_adds_sorted_tasks_and_detach_removes_them(
    task_mgr: TaskManager, make_clock: MakeClock
) -> None:
    world = World(NodePath("root"))
    loop = FrameLoop(world, make_clock(60), gizmos=Gizmos(NodePath("g")))
    loop.attach(task_mgr)
    [sim_task] = task_mgr.getTasksNamed("sim-loop")
    [gizmo_task] = task_mgr.getTasksNamed("sim-gizmos")
    assert (sim_task.get_sort(), gizmo_task.get_sort()) == (0, 49)
    with pytest.raises(RuntimeError, match="already attached"):
        loop.attach(task_mgr)
    loop.detach()
    assert not loop.attached
    assert task_mgr.getTasksNamed("sim-loop") == []
    assert task_mgr.getTasksNamed("sim-gizmos") == []
    loop.detach()


def test_world_updates_before_gizmos_are_drawn_each_frame(
    task_mgr: TaskManager, make_clock: MakeClock
) -> None:
    order: list[str] = []

    class Probe(Component):
        def update(self, dt: float) -> None:
            order.append("update")

        def on_draw_gizmos(self, gizmos: Gizmos) -> None:
            order.append("gizmos")

    world = World(NodePath("root"))
    world.spawn("probe").add_component(Probe())
    FrameLoop(world, make_clock(60), gizmos=Gizmos(NodePath("g"))).attach(task_mgr)
    run_frames(task_mgr, 2)
    assert order == ["update", "gizmos", "update", "gizmos"]


def test_phases_run_in_their_order_and_in_added_order_within_one(
    task_mgr: TaskManager, make_clock: MakeClock
) -> None:
    order: list[str] = []

    class Probe(Component):
        def update(self, dt: float) -> None:
            order.append("world")

        def on_draw_gizmos(self, gizmos: Gizmos) -> None:
            order.append("gizmos")

    def task(name: str) -> Callable[[Any], int]:
        def body(task: Any) -> int:
            order.append(name)
            return int(task.cont)

        return body

    world = World(NodePath("root"))
    world.spawn("probe").add_component(Probe())
    loop = FrameLoop(world, make_clock(60), gizmos=Gizmos(NodePath("g")))
    loop.attach(task_mgr)
    loop.add_task(Phase.UI, task("ui"), "ui")
    loop.add_task(Phase.INPUT, task("camera"), "camera")
    loop.add_task(Phase.INPUT, task("drag"), "drag")
    run_frames(task_mgr, 1)
    assert order == ["camera", "drag", "world", "ui", "gizmos"]
    assert list(Phase) == sorted(Phase), "the table lists the phases in the order they run"


def test_ui_phase_runs_while_paused(task_mgr: TaskManager, make_clock: MakeClock) -> None:
    ticks: list[int] = []

    def tick(task: Any) -> int:
        ticks.append(1)
        return int(task.cont)

    world = World(NodePath("root"))
    loop = FrameLoop(world, make_clock(60), fixed_dt=1 / 60)
    loop.attach(task_mgr)
    loop.add_task(Phase.UI, tick, "ui")
    loop.paused = True
    run_frames(task_mgr, 3)
    assert (world.frame_count, len(ticks)) == (0, 3)


def test_added_tasks_leave_with_remove_task_or_detach(
    task_mgr: TaskManager, make_clock: MakeClock
) -> None:
    loop = FrameLoop(World(NodePath("root")), make_clock(60))
    with pytest.raises(RuntimeError, match="not attached"):
        loop.add_task(Phase.UI, lambda task: int(task.cont), "early")
    loop.attach(task_mgr)
    ui = loop.add_task(Phase.UI, lambda task: int(task.cont), "ui")
    loop.add_task(Phase.INPUT, lambda task: int(task.cont), "input")
    assert ui.get_sort() == Phase.UI == 1
    loop.remove_task("ui")
    assert task_mgr.getTasksNamed("ui") == []
    loop.remove_task("ui")
    loop.detach()
    assert task_mgr.getTasksNamed("input") == []
    loop.remove_task("input")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fixed_dt": 0.0}, "fixed_dt must be"),
        ({"fixed_dt": -1 / 60}, "fixed_dt must be"),
        ({"max_steps_per_frame": 0}, "max_steps_per_frame must be"),
    ],
    ids=["zero-dt", "negative-dt", "zero-cap"],
)
def test_bad_settings_are_rejected(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        FrameLoop(World(NodePath("root")), ClockObject(), **kwargs)  # type: ignore[arg-type]


def test_negative_time_scale_is_rejected() -> None:
    loop = FrameLoop(World(NodePath("root")), ClockObject())
    with pytest.raises(ValueError, match="time_scale must be"):
        loop.time_scale = -1.0
