"""World, GameObject and Component: lifecycle order, deferred destroy, lookups (no window)."""

from __future__ import annotations

import time
from typing import ClassVar

import pytest
from panda3d.core import NodePath

from sim.engine import PYTHON_TAG, TAG_KEY, Component, GameObject, Gizmos, World
from sim.engine.world import BULK_DETACH_MIN, detach_all

Log = list[tuple[str, str]]


class Recorder(Component):
    """Appends (label, hook) to a shared log for every hook call."""

    def __init__(self, label: str, log: Log) -> None:
        super().__init__()
        self.label, self.log = label, log

    def awake(self) -> None:
        self.log.append((self.label, "awake"))

    def start(self) -> None:
        self.log.append((self.label, "start"))

    def update(self, dt: float) -> None:
        self.log.append((self.label, f"update {dt}"))

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        self.log.append((self.label, "gizmos"))

    def on_destroy(self) -> None:
        self.log.append((self.label, "destroy"))


class Spawner(Recorder):
    """On its first update, spawns an object carrying a Recorder labelled "child"."""

    def update(self, dt: float) -> None:
        super().update(dt)
        world = self.world
        if world is not None and world.find("child") is None:
            world.spawn("child").add_component(Recorder("child", self.log))


class Killer(Recorder):
    """On its first update, destroys the object named `victim` and records what find() sees."""

    def __init__(self, label: str, log: Log, victim: str) -> None:
        super().__init__(label, log)
        self.victim = victim
        self.seen_during_frame: GameObject | None = None

    def update(self, dt: float) -> None:
        super().update(dt)
        world = self.world
        assert world is not None
        target = world.find(self.victim)
        if target is not None and target.alive:
            target.destroy()
            self.seen_during_frame = world.find(self.victim)


class Boom(Component):
    def update(self, dt: float) -> None:
        raise RuntimeError("boom")


@pytest.fixture
def world() -> World:
    return World(NodePath("root"))


def test_full_lifecycle_runs_hooks_in_documented_order(world: World) -> None:
    log: Log = []
    a = world.spawn("a")
    a.add_component(Recorder("a1", log))
    a.add_component(Recorder("a2", log))
    world.spawn("b").add_component(Recorder("b1", log))
    assert log == [], "awake waits for the first step"

    world.step(0.5)
    world.draw_gizmos(Gizmos(NodePath("gizmo-root")))
    a.destroy()
    world.step(0.25)

    assert log == [
        ("a1", "awake"), ("a2", "awake"), ("b1", "awake"),
        ("a1", "start"), ("a2", "start"), ("b1", "start"),
        ("a1", "update 0.5"), ("a2", "update 0.5"), ("b1", "update 0.5"),
        ("a1", "gizmos"), ("a2", "gizmos"), ("b1", "gizmos"),
        ("b1", "update 0.25"),
        ("a1", "destroy"), ("a2", "destroy"),
    ]  # fmt: skip


def test_component_added_to_started_world_awakes_at_once_and_starts_next_step(
    world: World,
) -> None:
    log: Log = []
    world.step(0.1)
    late = world.spawn("late")
    late.add_component(Recorder("late", log))
    assert log == [("late", "awake")]
    world.step(0.1)
    assert log == [("late", "awake"), ("late", "start"), ("late", "update 0.1")]


def test_object_spawned_during_update_awakes_then_updates_next_frame(world: World) -> None:
    log: Log = []
    world.spawn("spawner").add_component(Spawner("spawner", log))
    world.step(1.0)
    assert log == [("spawner", "awake"), ("spawner", "start"), ("spawner", "update 1.0"),
                   ("child", "awake")]  # fmt: skip
    log.clear()
    world.step(2.0)
    assert log == [("child", "start"), ("spawner", "update 2.0"), ("child", "update 2.0")]


def test_destroy_during_update_is_deferred_to_the_end_of_the_frame(world: World) -> None:
    log: Log = []
    killer = world.spawn("killer").add_component(Killer("killer", log, victim="victim"))
    victim = world.spawn("victim", tag="Obstacle")
    victim.add_component(Recorder("victim", log))
    world.step(0.1)

    assert killer.seen_during_frame is victim, "find() still returns it during the frame"
    assert not victim.alive
    assert ("victim", "update 0.1") not in log, "a destroyed object's later updates are skipped"
    assert log[-1] == ("victim", "destroy")
    assert world.find("victim") is None
    assert world.find_with_tag("Obstacle") is None
    assert victim not in world.objects
    assert victim.world is None
    assert world.root.find("**/victim").is_empty()


def test_destroy_between_steps_waits_for_next_step_or_flush(world: World) -> None:
    obj = world.spawn("obj")
    world.step(0.1)
    obj.destroy()
    assert world.find("obj") is obj
    assert world.flush_destroyed() == 1
    assert world.find("obj") is None
    assert world.flush_destroyed() == 0


def test_destroy_takes_objects_under_the_node_with_it(world: World) -> None:
    log: Log = []
    parent = world.spawn("parent")
    child = world.spawn("child", node=parent.node.attach_new_node("x"))
    child.add_component(Recorder("child", log))
    other = world.spawn("other")
    world.step(0.1)
    parent.destroy()
    assert not child.alive
    world.step(0.1)
    assert world.objects == (other,)
    assert log[-1] == ("child", "destroy")


def test_destroy_before_first_step_skips_awake_and_on_destroy(world: World) -> None:
    log: Log = []
    obj = world.spawn("obj")
    obj.add_component(Recorder("r", log))
    obj.destroy()
    world.step(0.1)
    assert log == []
    assert world.objects == ()


def test_destroy_outside_a_world_is_immediate() -> None:
    root = NodePath("root")
    obj = GameObject(root.attach_new_node("loose"))
    obj.destroy()
    assert not obj.alive
    assert root.find("loose").is_empty()
    assert obj.name == "loose"
    obj.destroy()  # idempotent


def test_disabled_component_awakes_but_starts_only_once_enabled(world: World) -> None:
    log: Log = []
    recorder = world.spawn("obj").add_component(Recorder("r", log))
    recorder.enabled = False
    world.step(0.1)
    world.draw_gizmos(Gizmos(NodePath("g")))
    assert log == [("r", "awake")]
    recorder.enabled = True
    world.step(0.2)
    assert log == [("r", "awake"), ("r", "start"), ("r", "update 0.2")]


def test_exception_in_a_hook_propagates_and_world_can_step_again(world: World) -> None:
    boom = world.spawn("bomb").add_component(Boom())
    with pytest.raises(RuntimeError, match="boom"):
        world.step(0.1)
    boom.enabled = False
    world.step(0.1)
    assert world.frame_count == 2


def test_frame_count_and_time_s_sum_the_steps(world: World) -> None:
    for dt in (0.5, 0.25, 0.125):
        world.step(dt)
    assert world.frame_count == 3
    assert world.time_s == 0.875


@pytest.mark.parametrize("dt", [-0.1, float("nan"), float("inf")], ids=["negative", "nan", "inf"])
def test_step_rejects_bad_dt(world: World, dt: float) -> None:
    with pytest.raises(ValueError, match="dt must be"):
        world.step(dt)


def test_find_by_name_and_tag_in_insertion_order(world: World) -> None:
    first = world.spawn("wall", tag="Obstacle")
    world.spawn("start", tag="Start")
    second = world.spawn("wall", tag="Obstacle")
    assert world.find("wall") is first
    assert world.find("nothing") is None
    assert world.find_with_tag("Start") is world.find("start")
    assert world.find_all_with_tag("Obstacle") == [first, second]
    assert world.find_all_with_tag("End") == []


def test_retagged_objects_are_found_under_their_new_tag_in_insertion_order(
    world: World,
) -> None:
    first = world.spawn("a", tag="Obstacle")
    second = world.spawn("b", tag="Untagged")
    third = world.spawn("c", tag="Obstacle")
    second.tag = "Obstacle"
    assert world.find_all_with_tag("Obstacle") == [first, second, third]
    first.tag = "End"
    assert world.find_with_tag("Obstacle") is second
    assert world.find_with_tag("End") is first
    first.destroy()
    world.step(0.1)
    assert world.find_with_tag("End") is None


def test_versions_move_on_when_a_tag_gains_or_loses_an_object_and_only_then(
    world: World,
) -> None:
    def versions() -> tuple[int, int, int]:
        return world.membership_version, world.tag_version("Obstacle"), world.tag_version("End")

    wall = world.spawn("wall", tag="Obstacle")
    before = versions()
    world.step(0.1)
    wall.node.set_x(3.0)
    assert versions() == before  # moving is no change of membership
    world.spawn("start", tag="Start")
    after_start = versions()
    assert after_start[0] != before[0]
    assert after_start[1:] == before[1:]
    wall.tag = "End"
    after_retag = versions()
    assert all(now != then for now, then in zip(after_retag, after_start, strict=True))
    wall.destroy()
    assert versions() == after_retag  # still listed until the frame ends
    world.step(0.1)
    gone = versions()
    assert (gone[0] != after_retag[0], gone[1], gone[2] != after_retag[2]) == (
        True,
        after_retag[1],
        True,
    )


def test_components_start_in_object_then_component_order_whenever_they_awoke(
    world: World,
) -> None:
    log: Log = []
    early, late = world.spawn("early"), world.spawn("late")
    late.add_component(Recorder("late", log))
    early.add_component(Recorder("early-1", log))
    world.step(0.1)
    late.add_component(Recorder("late-2", log))
    early.add_component(Recorder("early-2", log))
    log.clear()
    world.step(0.1)
    assert [label for label, hook in log if hook == "start"] == ["early-2", "late-2"]
    updates = [label for label, hook in log if hook.startswith("update")]
    assert updates == ["early-1", "early-2", "late", "late-2"]


def test_tag_is_a_real_panda3d_tag(world: World) -> None:
    cube = world.spawn("cube", tag="Obstacle")
    world.spawn("start", tag="Start")
    assert list(world.root.find_all_matches("**/=tag=Obstacle")) == [cube.node]
    cube.tag = "End"
    assert cube.node.get_tag(TAG_KEY) == "End"
    assert world.root.find_all_matches("**/=tag=Obstacle").get_num_paths() == 0
    assert world.find_with_tag("End") is cube


def test_from_node_walks_up_to_the_owner(world: World) -> None:
    cube = world.spawn("cube")
    geom = cube.node.attach_new_node("mesh").attach_new_node("geom")
    assert GameObject.from_node(geom) is cube
    assert GameObject.from_node(cube.node) is cube
    assert GameObject.from_node(world.root) is None
    assert GameObject.from_node(NodePath()) is None
    cube.destroy()
    world.flush_destroyed()
    assert GameObject.from_node(geom) is None, "removal clears the back-link"
    assert geom.find_net_python_tag(PYTHON_TAG).is_empty()


def test_spawn_wraps_a_given_node_and_renames_it(world: World) -> None:
    model = NodePath("cube.egg")
    obj = world.spawn("end", tag="End", node=model)
    assert obj.name == "end"
    assert obj.node.get_parent() == world.root, "a parentless node goes under root"
    kept = world.root.attach_new_node("holder").attach_new_node("deep")
    assert world.spawn("deep", node=kept).node.get_parent().get_name() == "holder"


def test_pos_and_heading_are_the_nodes(world: World) -> None:
    obj = world.spawn("obj")
    obj.pos = (1.0, 2.0, 3.0)
    obj.heading = 90.0
    assert tuple(obj.pos) == (1.0, 2.0, 3.0)
    assert tuple(obj.node.get_pos()) == (1.0, 2.0, 3.0)
    assert obj.heading == 90.0


def test_world_pos_and_xy_are_in_the_world_whatever_the_parent(world: World) -> None:
    holder = world.root.attach_new_node("holder")
    holder.set_pos(10.0, 20.0, 0.0)
    obj = world.spawn("deep", node=holder.attach_new_node("deep"))
    obj.pos = (1.0, 2.0, 3.0)
    assert obj.world_pos == (11.0, 22.0, 3.0)
    assert obj.xy == (11.0, 22.0)


def test_get_component_matches_subclasses_in_order(world: World) -> None:
    log: Log = []
    obj = world.spawn("obj")
    spawner = obj.add_component(Spawner("s", log))
    plain = obj.add_component(Recorder("r", log))
    assert obj.get_component(Recorder) is spawner
    assert obj.get_component(Spawner) is spawner
    assert obj.get_component(Killer) is None
    assert obj.get_components(Recorder) == [spawner, plain]
    assert obj.components == (spawner, plain)
    assert spawner.game_object is obj
    assert spawner.world is world


def test_component_cannot_have_two_owners(world: World) -> None:
    component = Component()
    world.spawn("a").add_component(component)
    with pytest.raises(ValueError, match="already attached"):
        world.spawn("b").add_component(component)


def test_unattached_component_says_so() -> None:
    with pytest.raises(RuntimeError, match="not attached"):
        _ = Component().game_object


def test_game_object_rejects_empty_or_wrapped_nodes() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        GameObject(NodePath())
    node = NodePath("n")
    GameObject(node)
    with pytest.raises(ValueError, match="already belongs"):
        GameObject(node)


def test_object_belongs_to_one_world(world: World) -> None:
    obj = world.spawn("obj")
    assert world.add(obj) is obj
    with pytest.raises(ValueError, match="another World"):
        World(NodePath("other")).add(obj)


class CountedObject(GameObject):
    """A GameObject that counts every attribute read on it, in `reads[0]`."""

    reads: ClassVar[list[int]] = [0]

    def __getattribute__(self, name: str) -> object:
        CountedObject.reads[0] += 1
        return super().__getattribute__(name)


def teardown_reads(count: int) -> int:
    """Attribute reads on game objects while a world of `count` objects is torn down.

    Every fourth object hangs under the one before it, so the search for objects under a
    destroyed node has something to find; the teardown is SimApp.destroy's.
    """
    world = World(NodePath("root"))
    previous: GameObject | None = None
    for index in range(count):
        parent = world.root if previous is None or index % 4 else previous.node
        previous = world.add(CountedObject(parent.attach_new_node(f"obj{index}")))
        previous.add_component(Component())
    world.step(0.1)
    CountedObject.reads[0] = 0
    for game_object in world.objects:
        world.destroy(game_object)
    assert world.flush_destroyed() == count
    assert world.objects == ()
    return CountedObject.reads[0]


def test_teardown_of_n_objects_does_work_linear_in_n() -> None:
    # Linear work reads 4x as often for 4x the objects; scanning every object for each destroyed
    # one (the old descendant search) read 16x as often.
    small, large = teardown_reads(500), teardown_reads(2000)
    assert small > 0
    assert large <= 5 * small


def teardown_seconds(count: int) -> float:
    """Wall-clock seconds to tear down a world of `count` objects all under its root."""
    world = World(NodePath("root"))
    for index in range(count):
        world.spawn(f"obj{index}").add_component(Component())
    world.step(0.1)
    began = time.perf_counter()
    for game_object in world.objects:
        world.destroy(game_object)
    world.flush_destroyed()
    return time.perf_counter() - began


def test_teardown_time_grows_linearly_with_the_objects_under_one_root() -> None:
    # Attribute reads cannot see Panda3D's own work: detaching children one by one scans the
    # parent's child list each time. Measured: 4x the objects took 2.4x to 3x the time, and
    # 10x to 13x when each node was detached on its own; the bound is generous, best of two.
    small = min(teardown_seconds(5_000) for _ in range(2))
    large = min(teardown_seconds(20_000) for _ in range(2))
    assert large < 8 * small


def test_detach_all_keeps_the_staying_siblings_as_they_were() -> None:
    root = NodePath("root")
    children = [root.attach_new_node(f"n{index}", sort=index % 3) for index in range(200)]
    hidden = root.attach_new_node("hidden")
    hidden.stash()
    leaving = children[::2]
    staying = children[1::2]
    detach_all(leaving)
    assert list(root.get_children()) == sorted(staying, key=lambda node: node.get_sort())
    assert all(node.get_parent() == root for node in staying), "NodePaths still valid"
    assert all(node.get_parent().is_empty() for node in leaving)
    assert list(root.get_stashed_children()) == [hidden]
    assert len(leaving) >= BULK_DETACH_MIN, "the bulk path ran"


def test_destroy_takes_nested_objects_in_insertion_order(world: World) -> None:
    log: Log = []
    parent = world.spawn("parent")
    inner = world.spawn("inner", node=parent.node.attach_new_node("inner"))
    deepest = world.spawn("deepest", node=inner.node.attach_new_node("deepest"))
    sibling = world.spawn("sibling", node=parent.node.attach_new_node("sibling"))
    for obj in (parent, deepest, inner, sibling):
        obj.add_component(Recorder(obj.name, log))
    world.step(0.1)
    log.clear()
    parent.destroy()
    world.flush_destroyed()
    assert log == [(name, "destroy") for name in ("parent", "inner", "deepest", "sibling")]
    assert world.objects == ()


class Waker(Recorder):
    """On its second update, sets `needs_update` True on `sleeper`."""

    def __init__(self, label: str, log: Log, sleeper: Component) -> None:
        super().__init__(label, log)
        self.sleeper, self.updates = sleeper, 0

    def update(self, dt: float) -> None:
        super().update(dt)
        self.updates += 1
        if self.updates == 2:
            self.sleeper.needs_update = True


def _updates(log: Log) -> list[str]:
    return [label for label, hook in log if hook.startswith("update")]


def test_a_component_that_needs_no_update_is_skipped_but_keeps_its_gizmos():
    log: Log = []
    world = World(NodePath("root"))
    sleeper = world.spawn("sleeper").add_component(Recorder("sleeper", log))
    world.step(0.1)
    sleeper.needs_update = False
    world.step(0.1)
    world.draw_gizmos(Gizmos(NodePath("gizmos")))
    assert _updates(log) == ["sleeper"]
    assert ("sleeper", "gizmos") in log
    sleeper.needs_update = True
    world.step(0.1)
    assert _updates(log) == ["sleeper", "sleeper"]


@pytest.mark.parametrize("waker_first", [True, False], ids=["waker-before", "waker-after"])
def test_a_component_woken_during_a_step_updates_in_it_only_if_its_turn_is_to_come(
    waker_first: bool,
):
    log: Log = []
    world = World(NodePath("root"))
    sleeper = Recorder("sleeper", log)
    sleeper.needs_update = False
    waker = Waker("waker", log, sleeper)
    for name, component in [("waker", waker), ("sleeper", sleeper)][:: 1 if waker_first else -1]:
        world.spawn(name).add_component(component)
    world.step(0.1)
    world.step(0.1)  # the waker wakes the sleeper in this one
    world.step(0.1)
    woken_now = ["waker", "waker", "sleeper", "waker", "sleeper"]
    woken_next = ["waker", "waker", "sleeper", "waker"]
    assert _updates(log) == (woken_now if waker_first else woken_next)


def test_thousands_stopping_their_updates_in_one_step_list_the_rest_once(monkeypatch):
    world = World(NodePath("root"))

    class OneShot(Component):
        def update(self, dt: float) -> None:
            self.needs_update = False

    shots = [world.spawn(f"o{index}").add_component(OneShot()) for index in range(2000)]
    listings = []
    needing = World._needing_update

    def counted(pairs):
        listings.append(len(pairs))
        return needing(pairs)

    monkeypatch.setattr(World, "_needing_update", staticmethod(counted))
    world.step(0.1)
    world.step(0.1)
    # Listed at the first step and again at the next, not once per stop (2,000 x 2,000).
    assert len(listings) == 2
    assert not any(shot.needs_update for shot in shots)


def test_draws_gizmos_false_leaves_a_component_out_of_the_drawing_only(world: World) -> None:
    log: Log = []
    quiet = Recorder("quiet", log)
    world.spawn("a").add_component(quiet)
    world.spawn("b").add_component(Recorder("loud", log))
    gizmos = Gizmos(NodePath("gizmo-root"))
    world.step(0.5)
    quiet.draws_gizmos = False
    world.draw_gizmos(gizmos)
    world.step(0.5)
    quiet.draws_gizmos = True
    world.draw_gizmos(gizmos)

    assert [entry for entry in log if entry[1] in ("gizmos", "update 0.5")] == [
        ("quiet", "update 0.5"), ("loud", "update 0.5"),
        ("loud", "gizmos"),
        ("quiet", "update 0.5"), ("loud", "update 0.5"),
        ("quiet", "gizmos"), ("loud", "gizmos"),
    ]  # fmt: skip


def test_a_component_added_after_a_drawing_is_drawn_in_the_next(world: World) -> None:
    log: Log = []
    world.spawn("a").add_component(Recorder("first", log))
    gizmos = Gizmos(NodePath("gizmo-root"))
    world.step(0.5)
    world.draw_gizmos(gizmos)
    world.spawn("b").add_component(Recorder("second", log))
    world.step(0.5)
    world.draw_gizmos(gizmos)

    assert [label for label, hook in log if hook == "gizmos"] == ["first", "first", "second"]
