"""The nine torture cases as users vary them: each case's parameters, their ranges, its builder.

`PARAMS` states every case's parameters and the values each may take (what `draw` samples and
`check_params` enforces); `build` turns one case's parameters and a `Mix` into a `Draft`. The
layouts follow the hand-written scenes of ``scenes/torture/`` (rooms east and west of a wall,
goals as markers), with the part a user would change made a parameter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import numpy as np

from sim.bench.variants.draft import EAST_HEADING, WEST_HEADING, Draft, Mix

Params = Mapping[str, Any]

PARAMS: Final[dict[str, dict[str, tuple[Any, ...]]]] = {
    "alcove": {
        "length": tuple(range(5, 16)),
        "alcove_at": tuple(range(1, 14)),
        "side": ("north", "south"),
        "per_side": (1, 2),
    },
    "blocked": {"standing": (1, 2, 3, 4), "walkers": tuple(range(2, 9))},
    "burst": {"count": (20, 40, 60, 80, 100)},
    "corridor": {"length": tuple(range(3, 13)), "width": (1, 2), "per_side": (1, 2, 3, 4, 5)},
    "doorway": {"per_side": tuple(range(2, 17)), "door": (1, 2)},
    "head_on": {"distance": tuple(range(6, 21)), "offset": (0.0, 0.2, 0.45)},
    "parting": {
        "crowd_rows": (2, 3, 4),
        "crowd_columns": (2, 3, 4, 5),
        "corridor_rows": (5, 6, 7),
        "late": (1, 2),
        "late_goal": ("beyond", "inside"),
    },
    "pillar": {
        "width": (1, 2, 3, 4, 5),
        "height": (1, 2, 3, 4, 5),
        "shape": ("rect", "diamond"),
        "per_side": tuple(range(2, 11)),
    },
    "pushed": {"group": tuple(range(4, 13)), "group_speed": (1.5, 2.5, 3.5)},
}
"""Each case's parameters and the values each may take."""

NO_EXTRA_WALL: Final = {
    "alcove": "the corridor's only free cell off its line is the alcove: walled, none can pass",
}
"""Cases that never get an extra wall, and why: any place for it makes the case impossible."""

TWO_RADII: Final = (0.4, 0.25)
TWO_SPEEDS: Final = (3.0, 1.5)
STANDING_SPACING = 0.86
"""Centre to centre in the parting case's standing crowd (cells): 0.4-radius discs, a gap."""


def check_params(case: str, params: Params) -> None:
    """Refuse parameters outside `case`'s stated ranges, or that contradict each other.

    Raises:
        ValueError: naming the case and the value.
    """
    if case not in PARAMS:
        raise ValueError(f"unknown torture case {case!r}; expected one of {sorted(PARAMS)}")
    ranges = PARAMS[case]
    if set(params) != set(ranges):
        raise ValueError(f"{case}: expected parameters {sorted(ranges)}, got {sorted(params)}")
    for key, allowed in ranges.items():
        if params[key] not in allowed:
            raise ValueError(f"{case}: {key} must be one of {list(allowed)}, got {params[key]!r}")
    if case == "alcove":
        # k a side pass through one alcove only if the alcove and the corridor cells on one
        # side of it can hold all 2k agents at once (while the last pair passes): 2k - 1 cells
        # each side. With fewer no way exists; two a side with two cells beside the alcove
        # was a jam nobody could break (nobody arrived in 5x the free-flow time).
        room = 2 * params["per_side"] - 1
        if not room <= params["alcove_at"] <= params["length"] - 1 - room:
            raise ValueError(
                f"alcove: with {params['per_side']} a side the alcove needs {room} corridor "
                f"cells each side (alcove_at {room} .. {params['length'] - 1 - room}), got "
                f"{params['alcove_at']}"
            )


def draw(case: str, rng: np.random.Generator) -> dict[str, Any]:
    """Seeded parameters for `case`, within its ranges and consistent (see `check_params`)."""
    while True:
        params = {key: _pick(rng, allowed) for key, allowed in PARAMS[case].items()}
        try:
            check_params(case, params)
        except ValueError:
            continue  # a contradiction (an alcove past the corridor's end): draw again
        return params


def draw_mix(case: str, rng: np.random.Generator) -> Mix:
    """A seeded mix for `case`: two sizes, two speeds, mixed priorities, an extra wall.

    Each of the first three half the time; the extra wall 3 times in 10, never for the cases
    of `NO_EXTRA_WALL`.
    """
    return Mix(
        radii=TWO_RADII if rng.random() < 0.5 else TWO_RADII[:1],
        speeds=TWO_SPEEDS if rng.random() < 0.5 else TWO_SPEEDS[:1],
        priorities=bool(rng.random() < 0.5),
        extra_wall=bool(rng.random() < 0.3) and case not in NO_EXTRA_WALL,
    )


def _pick(rng: np.random.Generator, allowed: tuple[Any, ...]) -> Any:
    value = allowed[int(rng.integers(len(allowed)))]
    return value.item() if isinstance(value, np.generic) else value


def build(
    case: str, name: str, params: Params, mix: Mix, rng: np.random.Generator
) -> tuple[Draft, tuple[float, float, float, float] | None]:
    """`case`'s scene for `params` (checked first) and `mix`, and its flow gate (or None)."""
    check_params(case, params)
    return _BUILDERS[case](name, params, mix, rng)


Built = tuple[Draft, tuple[float, float, float, float] | None]


def _two_rooms(draft: Draft, per_side: int, first: int, last: int, rows: int) -> None:
    """Eastbound agents in columns 0 .. `first` - 1, westbound east of `last`; swap rooms."""
    east_room = (last + 1, 0), (draft.columns - 1, rows - 1)
    for number, cell in enumerate(draft.pick((0, 0), (first - 1, rows - 1), per_side), 1):
        draft.agent(f"eastbound-{number}", cell, EAST_HEADING, "east-room")
    for number, cell in enumerate(draft.pick(*east_room, per_side), 1):
        draft.agent(f"westbound-{number}", cell, WEST_HEADING, "west-room")


def _head_on(name: str, params: Params, mix: Mix, rng: np.random.Generator) -> Built:
    distance = int(params["distance"])
    draft = Draft(name, distance + 7, 9, mix, rng)
    draft.marker("west", 1.5, 4.5)
    draft.marker("east", distance + 5.5, 4.5)
    draft.agent("going-east", (3.5, 4.5), EAST_HEADING, "east")
    draft.agent("going-west", (3.5 + distance, 4.5 + params["offset"]), WEST_HEADING, "west")
    return draft, None


def _corridor(name: str, params: Params, mix: Mix, rng: np.random.Generator) -> Built:
    length, width = int(params["length"]), int(params["width"])
    room, rows = 4, 5
    draft = Draft(name, 2 * room + length, rows, mix, rng)
    first, last = room, room + length - 1
    draft.wall("wall-south", (first, 0), (last, 1))
    draft.wall("wall-north", (first, 2 + width), (last, rows - 1))
    draft.marker("west-room", 1.5, 2.5)
    draft.marker("east-room", draft.columns - 1.5, 2.5)
    _two_rooms(draft, int(params["per_side"]), first, last, rows)
    return draft, None


def _alcove(name: str, params: Params, mix: Mix, rng: np.random.Generator) -> Built:
    length, at = int(params["length"]), int(params["alcove_at"])
    draft = Draft(name, length, 3, mix, rng)
    wall_row, alcove_row = (0, 2) if params["side"] == "north" else (2, 0)
    draft.wall("wall-solid", (0, wall_row), (length - 1, wall_row))
    if at > 0:
        draft.wall("wall-west", (0, alcove_row), (at - 1, alcove_row))
    draft.wall("wall-east", (at + 1, alcove_row), (length - 1, alcove_row))
    side = int(params["per_side"])
    for number in range(side):
        # Each group keeps its order, as a file in a corridor must: the leader goes farthest.
        west, east = side - 1 - number, length - side + number
        draft.marker(f"west-end-{number + 1}", number + 0.5, 1.5)
        draft.marker(f"east-end-{number + 1}", length - 1 - number + 0.5, 1.5)
        draft.agent(f"going-east-{number + 1}", (west, 1), EAST_HEADING, f"east-end-{number + 1}")
        draft.agent(f"going-west-{number + 1}", (east, 1), WEST_HEADING, f"west-end-{number + 1}")
    return draft, None


def _doorway(name: str, params: Params, mix: Mix, rng: np.random.Generator) -> Built:
    door = int(params["door"])
    draft = Draft(name, 13, 8, mix, rng)
    draft.wall("wall-south", (6, 0), (6, 3))
    draft.wall("wall-north", (6, 4 + door), (6, 7))
    draft.marker("west-room", 2.5, 4.5)
    draft.marker("east-room", 10.5, 4.5)
    _two_rooms(draft, int(params["per_side"]), 6, 6, 8)
    return draft, (6.5, 4.0, 6.5, 4.0 + door)


def _pillar(name: str, params: Params, mix: Mix, rng: np.random.Generator) -> Built:
    width, height = int(params["width"]), int(params["height"])
    draft = Draft(name, 36, 16, mix, rng)
    c0, r0 = 18 - width // 2, 8 - height // 2
    if params["shape"] == "rect":
        draft.wall("pillar", (c0, r0), (c0 + width - 1, r0 + height - 1))
    else:  # a diamond: rows of cells narrowing from its middle row
        half = max(width, height) // 2
        for row in range(-half, half + 1):
            reach = half - abs(row)
            draft.wall(f"pillar-{row + half}", (18 - reach, 8 + row), (18 + reach, 8 + row))
    draft.marker("west-mark", 2.5, 8.0)
    draft.marker("east-mark", 33.5, 8.0)
    per_side = int(params["per_side"])
    for number, cell in enumerate(draft.pick((1, 5), (5, 10), per_side), 1):
        draft.agent(f"eastbound-{number}", cell, EAST_HEADING, "east-mark")
    for number, cell in enumerate(draft.pick((30, 5), (34, 10), per_side), 1):
        draft.agent(f"westbound-{number}", cell, WEST_HEADING, "west-mark")
    return draft, None


def _parting(name: str, params: Params, mix: Mix, rng: np.random.Generator) -> Built:
    rows, columns = int(params["crowd_rows"]), int(params["crowd_columns"])
    corridor = int(params["corridor_rows"])
    draft = Draft(name, 32, corridor, mix, rng)
    middle = corridor / 2.0
    draft.marker("end", 16.0, middle, tag="End")
    draft.marker("far-end", 30.5, middle)
    inside = params["late_goal"] == "inside"
    late = int(params["late"])
    for number in range(1, late + 1):
        y = middle if late == 1 else middle + number - 1.5
        draft.agent(f"late-{number}", (1.5, y), EAST_HEADING, None if inside else "far-end")
    number = 0
    for row in range(rows):
        for column in range(columns):
            number += 1
            x = 16.0 + (column - (columns - 1) / 2.0) * STANDING_SPACING
            y = middle + (row - (rows - 1) / 2.0) * STANDING_SPACING
            # The standing crowd chases End as written: one size and speed, the mix is the late's.
            draft.agent(f"standing-{number}", (x, y), EAST_HEADING, None, radius=0.4, speed=3.0)
    return draft, None


def _pushed(name: str, params: Params, mix: Mix, rng: np.random.Generator) -> Built:
    draft = Draft(name, 30, 20, mix, rng)
    draft.marker("east", 27.5, 10.5)
    draft.marker("north", 15.5, 18.5)
    draft.agent("walker", (5, 10), EAST_HEADING, "east")
    group = draft.pick((12, 0), (18, 3), int(params["group"]))
    for number, cell in enumerate(group, 1):
        draft.agent(f"group-{number}", cell, 0.0, "north", speed=float(params["group_speed"]))
    return draft, None


def _burst(name: str, params: Params, mix: Mix, rng: np.random.Generator) -> Built:
    draft = Draft(name, 72, 32, mix, rng)
    draft.marker("end", 56.5, 16.5, tag="End")
    for number in range(1, int(params["count"]) + 1):
        # One point, as the scene's crowd spawns them: the spawn rule spreads them out.
        x, y = 8.0 + rng.uniform(0.0, 0.01), 16.0 + rng.uniform(0.0, 0.01)
        draft.agent(f"burst-{number}", (x, y), EAST_HEADING, None)
    return draft, None


def _blocked(name: str, params: Params, mix: Mix, rng: np.random.Generator) -> Built:
    draft = Draft(name, 30, 16, mix, rng)
    draft.wall("wall-south", (14, 0), (15, 4))
    draft.wall("wall-north", (14, 6), (15, 11))
    draft.marker("east", 27.5, 5.5)
    # The corridor's own cells first (columns 14, 15), then the cells at its mouths.
    for number, column in enumerate((14, 15, 13, 16)[: int(params["standing"])], 1):
        draft.marker(f"post-{number}", column + 0.5, 5.5)
        draft.agent(
            f"standing-{number}",
            (column, 5),
            EAST_HEADING,
            f"post-{number}",
            avoidance=False,
            radius=0.4,
        )
    for number, cell in enumerate(draft.pick((2, 3), (5, 7), int(params["walkers"])), 1):
        draft.agent(f"walker-{number}", cell, EAST_HEADING, "east")
    return draft, None


_BUILDERS: Final[dict[str, Callable[[str, Params, Mix, np.random.Generator], Built]]] = {
    "alcove": _alcove,
    "blocked": _blocked,
    "burst": _burst,
    "corridor": _corridor,
    "doorway": _doorway,
    "head_on": _head_on,
    "parting": _parting,
    "pillar": _pillar,
    "pushed": _pushed,
}
