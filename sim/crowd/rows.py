"""AgentRows: every agent of a crowd as one row of parallel numpy arrays (struct of arrays).

Row i of every array belongs to agent i. Agents join with `add` (kept aside until the next
`flush`, so a scene of thousands joins in one copy, not one per agent) and leave with `keep`,
which drops rows and closes the gaps, keeping the others' order. Each array is a view of the
first rows of a buffer that doubles when full, so agents added one by one with a flush
between each (as a scene's agents wake) cost O(N) in all, not a copy of every row each.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

# name: (dtype, shape of one row's value, value of a new row unless given)
COLUMNS: dict[str, tuple[type, tuple[int, ...], Any]] = {
    "index": (np.int64, (), -1),  # the agent's index in its `Crowd`
    "positions": (np.float64, (2,), 0.0),
    "velocities": (np.float64, (2,), 0.0),
    "headings": (np.float64, (), 0.0),  # degrees, Panda3D's: 0 faces +Y, counter-clockwise
    # A self-steered agent's facing as its steering keeps it, (w, x, y, z) (`sim.crowd.steering`)
    "rotations": (np.float64, (4,), 0.0),
    "radii": (np.float64, (), 0.0),
    "speeds": (np.float64, (), 0.0),  # the fastest each may go
    "arrival_radii": (np.float64, (), 0.0),
    "turn_rates": (np.float64, (), 0.0),
    # Motion settings (`sim.crowd.rules.motion_limits`): units/s², deg/s, auto braking, ORCA weight
    "accelerations": (np.float64, (), np.inf),
    "angular_speeds": (np.float64, (), np.inf),
    "braking": (np.bool_, (), True),
    "weights": (np.float64, (), 1.0),
    "everywhere": (np.bool_, (), True),  # walks on every area
    "mask": (np.int32, (), 0),  # a driven agent's set of areas (`sim.crowd.areas.masks`)
    "colors": (np.float64, (4,), 1.0),
    "avoidance": (np.bool_, (), True),
    "driven": (np.bool_, (), False),  # moved by the crowd (else by its owner)
    "joint": (np.bool_, (), False),  # follows the scene's joint (MAPF) plan
    "patrol": (np.bool_, (), False),  # patrol mode (else chase)
    "to_start": (np.bool_, (), False),  # patrolling back to Start
    "key": (np.int32, (), 0),  # which target it chases (`Crowd` keeps the keys)
    "state": (np.int8, (), 0),  # index into the agent states
    "replans": (np.int64, (), 0),
    "causes": (np.int64, (3,), 0),  # replans by cause, in `ReplanCause` order
    "last_cause": (np.int8, (), -1),  # -1: none yet
    "arrivals": (np.int64, (), 0),
    "pushes": (np.int64, (), 0),
    "expanded": (np.int64, (), 0),
    "blocked": (np.int64, (), 0),  # frames its centre stood on a blocked cell
    "distance": (np.float64, (), 0.0),
    "still": (np.int32, (), 0),  # frames it has stayed near `rest_from`
    "rest_from": (np.float64, (2,), np.nan),  # where it stood when it began to stay
    "stuck": (np.int32, (), 0),  # frames in a row walls held it back
    "walled": (np.bool_, (), False),  # a wall changed its last move (slid or held)
    "preferred": (np.float64, (2,), 0.0),  # the velocity it wanted last frame
    "home": (np.float64, (2,), 0.0),  # where it arrived: its place in the cluster
    "progress": (np.float64, (), 1.0),  # how much of its wanted way it made lately, 0 to 1
    "opposed": (np.bool_, (), False),  # a neighbour wants to go the opposite way
    "pending": (np.int8, (), -1),  # a replan asked for from outside, by cause; -1: none
    "aim": (np.int64, (), -1),  # the flat cell a driven agent heads for; -1: none
    "aim_points": (np.float64, (2,), 0.0),  # where it heads, world x, y
    # A driven agent crossing a link (`sim.crowd.links.crossings`): the link's kind as an
    # index into LINK_KINDS (-1: not crossing), seconds in and in all, from and to (x, y).
    "crossing": (np.int8, (), -1),
    "cross_s": (np.float64, (), 0.0),
    "cross_time": (np.float64, (), 0.0),
    "cross_from": (np.float64, (2,), 0.0),
    "cross_to": (np.float64, (2,), 0.0),
    "lift": (np.float64, (), 0.0),  # height above the ground while crossing
    "shown": (np.bool_, (), True),  # False while a teleport hides it
}
OBJECTS = ("owners", "configs", "outcomes", "waypoints")
"""Per-row Python objects, kept in lists beside the arrays."""


class AgentRows:
    """The arrays of `COLUMNS` (attributes of the same names) and the lists of `OBJECTS`."""

    index: NDArray[np.int64]
    positions: NDArray[np.float64]
    velocities: NDArray[np.float64]
    headings: NDArray[np.float64]
    rotations: NDArray[np.float64]
    radii: NDArray[np.float64]
    speeds: NDArray[np.float64]
    arrival_radii: NDArray[np.float64]
    turn_rates: NDArray[np.float64]
    accelerations: NDArray[np.float64]
    angular_speeds: NDArray[np.float64]
    braking: NDArray[np.bool_]
    weights: NDArray[np.float64]
    everywhere: NDArray[np.bool_]
    mask: NDArray[np.int32]
    colors: NDArray[np.float64]
    avoidance: NDArray[np.bool_]
    driven: NDArray[np.bool_]
    joint: NDArray[np.bool_]
    patrol: NDArray[np.bool_]
    to_start: NDArray[np.bool_]
    key: NDArray[np.int32]
    state: NDArray[np.int8]
    replans: NDArray[np.int64]
    causes: NDArray[np.int64]
    last_cause: NDArray[np.int8]
    arrivals: NDArray[np.int64]
    pushes: NDArray[np.int64]
    expanded: NDArray[np.int64]
    blocked: NDArray[np.int64]
    distance: NDArray[np.float64]
    still: NDArray[np.int32]
    rest_from: NDArray[np.float64]
    stuck: NDArray[np.int32]
    walled: NDArray[np.bool_]
    preferred: NDArray[np.float64]
    home: NDArray[np.float64]
    progress: NDArray[np.float64]
    opposed: NDArray[np.bool_]
    pending: NDArray[np.int8]
    aim: NDArray[np.int64]
    aim_points: NDArray[np.float64]
    crossing: NDArray[np.int8]
    cross_s: NDArray[np.float64]
    cross_time: NDArray[np.float64]
    cross_from: NDArray[np.float64]
    cross_to: NDArray[np.float64]
    lift: NDArray[np.float64]
    shown: NDArray[np.bool_]
    owners: list[Any]
    configs: list[Any]
    outcomes: list[Any]
    waypoints: list[Any]

    def __init__(self) -> None:
        for name, (dtype, shape, _) in COLUMNS.items():
            setattr(self, name, np.zeros((0, *shape), dtype=dtype))
        for name in OBJECTS:
            setattr(self, name, [])
        self._added: list[dict[str, Any]] = []
        self._count = 0
        # Each column's buffer; its attribute is a view of the buffer's first `_count` rows.
        self._buffers: dict[str, NDArray[Any]] = {name: getattr(self, name) for name in COLUMNS}

    def __len__(self) -> int:
        """Rows, those added since the last flush included."""
        return self._count + len(self._added)

    def add(self, **values: Any) -> int:
        """Add a row (columns not given take their defaults); return its index.

        The arrays show it from the next `flush`; the object lists at once.
        """
        unknown = set(values) - set(COLUMNS) - set(OBJECTS)
        if unknown:
            raise ValueError(f"unknown row values: {sorted(unknown)}")
        row = len(self)
        for name in OBJECTS:
            getattr(self, name).append(values.pop(name, None))
        self._added.append(values)
        return row

    @property
    def pending_rows(self) -> bool:
        """Whether rows were added since the last flush."""
        return bool(self._added)

    def flush(self) -> None:
        """Append the rows added since the last flush to the arrays, all at once."""
        if not self._added:
            return
        added, self._added = self._added, []
        count, total = self._count, self._count + len(added)
        for name, (dtype, shape, default) in COLUMNS.items():
            buffer = self._buffers[name]
            if len(buffer) < total:
                grown: NDArray[Any] = np.empty((max(total, 2 * len(buffer)), *shape), dtype)
                grown[:count] = getattr(self, name)
                self._buffers[name] = buffer = grown
            for index, values in enumerate(added, start=count):
                buffer[index] = values.get(name, default)
            setattr(self, name, buffer[:total])
        self._count = total

    def keep(self, mask: NDArray[np.bool_]) -> NDArray[np.intp]:
        """Drop the rows where `mask` is False (after a flush).

        Returns the new index of each old row, -1 for those dropped.
        """
        self.flush()
        kept = np.flatnonzero(mask)
        for name in COLUMNS:
            self._buffers[name] = getattr(self, name)[kept]
            setattr(self, name, self._buffers[name])
        for name in OBJECTS:
            items = getattr(self, name)
            setattr(self, name, [items[index] for index in kept])
        self._count = len(kept)
        moved = np.full(len(mask), -1, dtype=np.intp)
        moved[kept] = np.arange(len(kept))
        return moved


def take_rows(array: NDArray[Any], index: NDArray[Any]) -> NDArray[Any]:
    """`array[index]` along the first axis, for integer or boolean `index`: the same values.

    Numpy's fancy indexing copies each row of an (n, 2) array through a generic subspace
    loop, about ten times slower than `np.take` (a quarter of a millisecond at 10,000 rows);
    a crowd's frame gathers such rows a few dozen times.

    >>> take_rows(np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]), np.array([2, 0])).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    if index.dtype == np.bool_:
        index = np.flatnonzero(index)
    taken: NDArray[Any] = np.take(array, index, axis=0)
    return taken


def put_rows(array: NDArray[Any], index: NDArray[Any], values: Any) -> None:
    """`array[index] = values` along the first axis, for integer or boolean `index`.

    A C-contiguous (n, 2) float64 array is written as (n,) complex numbers, two floats each,
    moved bit for bit (see `take_rows` for why); `values` is (len(index), 2), one point (2,)
    for every row or one number. Anything else takes numpy's own assignment.

    >>> points = np.zeros((3, 2))
    >>> put_rows(points, np.array([False, True, True]), np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> put_rows(points, np.array([0]), (5.0, 6.0))
    >>> points.tolist()
    [[5.0, 6.0], [1.0, 2.0], [3.0, 4.0]]
    """
    if index.dtype == np.bool_:
        index = np.flatnonzero(index)
    given = np.asarray(values)
    pairs = array.ndim == 2 and array.shape[1] == 2 and array.dtype == np.float64
    if not (pairs and array.flags.c_contiguous and given.dtype.kind in "fiub"):
        array[index] = values
        return
    as_complex = array.view(np.complex128)[:, 0]
    if given.ndim == 0:
        as_complex[index] = complex(float(given), float(given))
    elif given.shape == (2,):
        as_complex[index] = complex(float(given[0]), float(given[1]))
    elif given.shape == (len(index), 2):
        as_complex[index] = np.ascontiguousarray(given, dtype=np.float64).view(np.complex128)[:, 0]
    else:
        array[index] = values


def lengths(vectors: NDArray[np.float64]) -> NDArray[np.float64]:
    """The length of each 2-vector along the last axis of `vectors`: ``sqrt(x * x + y * y)``.

    A quarter of `np.hypot`'s cost (which guards against overflow that a crowd's positions,
    bounded far below it, never reach), but not always the same last bit; a crowd's frame
    takes about ten of these over every agent. The C kernels' own lengths and their numpy
    references keep `hypot`.

    >>> lengths(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [5.0, 0.0]
    """
    x, y = vectors[..., 0], vectors[..., 1]
    length: NDArray[np.float64] = np.sqrt(x * x + y * y)
    return length
