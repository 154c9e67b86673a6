"""Plan files as Kei18's mapf-visualizer reads them (the output format of his LaCAM and PIBT).

Header lines ``key=value`` (``agents``, ``map_file``, ``solver``, ``solved``, ``soc``,
``soc_lb``, ``makespan``, ``makespan_lb``, ``comp_time`` in milliseconds), then ``solution=``
and one line per time step, ``t:(x,y),(x,y),...,`` with x the column and y the row, one pair
per agent in agent order, each followed by a comma.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

PAIR = re.compile(r"\((-?\d+),(-?\d+)\),")
STEP = re.compile(r"^(\d+):((?:\(-?\d+,-?\d+\),)*)$")


def format_plan(header: Mapping[str, object], paths: Sequence[Sequence[tuple[int, int]]]) -> str:
    """The file's text: `header` in its order, then the paths (``(row, col)``, equal lengths).

    >>> print(format_plan({"agents": 2}, [[(0, 0), (0, 1)], [(1, 1), (1, 1)]]), end="")
    agents=2
    solution=
    0:(0,0),(1,1),
    1:(1,0),(1,1),
    """
    lines = [f"{key}={value}" for key, value in header.items()]
    lines.append("solution=")
    steps = max((len(path) for path in paths), default=0)
    for t in range(steps):
        pairs = "".join(f"({path[t][1]},{path[t][0]})," for path in paths)
        lines.append(f"{t}:{pairs}")
    return "\n".join(lines) + "\n"


def parse_plan(text: str, *, source: str = "<plan>") -> list[list[tuple[int, int]]]:
    r"""Read the paths of a plan file as ``(row, col)`` per agent; the header is not needed.

    Raises:
        ValueError: ``SOURCE:LINE: problem`` for a missing ``solution=`` line, a step line
            out of order or not of the form ``t:(x,y),...,``, or steps of different widths.

    >>> parse_plan("agents=1\nsolution=\n0:(2,0),\n1:(2,1),\n")
    [[(0, 2), (1, 2)]]
    """
    lines = text.splitlines()
    try:
        first = next(i for i, line in enumerate(lines) if line.strip() == "solution=") + 1
    except StopIteration:
        raise ValueError(f"{source}: no 'solution=' line") from None
    paths: list[list[tuple[int, int]]] = []
    for index in range(first, len(lines)):
        line = lines[index].strip()
        if not line:
            continue
        match = STEP.match(line)
        where = f"{source}:{index + 1}"
        if match is None:
            raise ValueError(f"{where}: expected 't:(x,y),(x,y),...,', got {line[:80]!r}")
        t = int(match.group(1))
        pairs = [(int(y), int(x)) for x, y in PAIR.findall(match.group(2))]
        if t != (len(paths[0]) if paths else 0):
            raise ValueError(f"{where}: time step {t} out of order")
        if not paths:
            paths = [[] for _ in pairs]
        if len(pairs) != len(paths):
            raise ValueError(f"{where}: {len(pairs)} agents, but step 0 has {len(paths)}")
        for path, pair in zip(paths, pairs, strict=True):
            path.append(pair)
    return paths
