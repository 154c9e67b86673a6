"""Writers for the Moving AI Lab grid benchmark files: ``.map`` grids and ``.scen`` lists.

The formats are the ones `sim.navigation.maps.movingai` reads (see there): a map is ``type octile``,
``height H``, ``width W``, ``map`` and H rows of W characters, ``.`` walkable and ``@``
blocked; a scenario file is ``version 1`` and one tab-separated line per scenario, with the
bare map name and the optimal length to 8 decimals, as the newer files write them. What these
write, `read_map` and `read_scenarios` read back unchanged.

Files are replaced atomically: the text goes to a temporary file in the same folder, reaches
the disk, and is renamed over the target, so a reader (or a run killed mid-write) sees the old
file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import check_walkable
from sim.navigation.maps.movingai import Scenario

LENGTH_DECIMALS = 8
"""Decimals of each optimal length written, as in the newer Moving AI files (``%.8f``)."""


def format_map(walkable: NDArray[np.bool_]) -> str:
    r"""Return the text of a ``.map`` file of `walkable` (``[row, col]``, True = ``.``).

    >>> format_map(np.array([[True, False]]))
    'type octile\nheight 1\nwidth 2\nmap\n.@\n'
    """
    mask = check_walkable(walkable)
    height, width = mask.shape
    if mask.size == 0:
        raise ValueError(f"walkable must have at least one cell, got shape {mask.shape}")
    chars = np.where(mask, ord("."), ord("@")).astype(np.uint8)
    lines = np.concatenate([chars, np.full((height, 1), ord("\n"), dtype=np.uint8)], axis=1)
    return f"type octile\nheight {height}\nwidth {width}\nmap\n" + lines.tobytes().decode("ascii")


def write_map(path: str | Path, walkable: NDArray[np.bool_]) -> None:
    """Write `walkable` to `path` as a Moving AI ``.map`` file (atomically, see the module).

    Raises:
        ValueError: for a bad mask (not 2-D, not bool, empty).
        OSError: the file cannot be written; `path` is as it was.
    """
    _write_atomic(Path(path), format_map(walkable))


def format_scenarios(scenarios: Iterable[Scenario]) -> str:
    r"""Return the text of a ``.scen`` file of `scenarios`, in the order given.

    Each line: bucket, map name, map width, map height, start x, start y, goal x, goal y and
    the optimal length with `LENGTH_DECIMALS` decimals, tab-separated.

    >>> scenario = Scenario(0, "m.map", 3, 1, 0, 0, 2, 0, 2.0, 2)
    >>> format_scenarios([scenario])
    'version 1\n0\tm.map\t3\t1\t0\t0\t2\t0\t2.00000000\n'
    """
    lines = ["version 1\n"]
    for scenario in scenarios:
        check_map_name(scenario.map_name)
        fields = (
            scenario.bucket,
            scenario.map_name,
            scenario.map_width,
            scenario.map_height,
            scenario.start_x,
            scenario.start_y,
            scenario.goal_x,
            scenario.goal_y,
            f"{scenario.optimal_length:.{LENGTH_DECIMALS}f}",
        )
        lines.append("\t".join(str(field) for field in fields) + "\n")
    return "".join(lines)


def write_scenarios(path: str | Path, scenarios: Iterable[Scenario]) -> None:
    """Write `scenarios` to `path` as a Moving AI ``.scen`` file (atomically, see the module).

    Raises:
        ValueError: a map name the format cannot hold (see `check_map_name`).
        OSError: the file cannot be written; `path` is as it was.
    """
    _write_atomic(Path(path), format_scenarios(scenarios))


def check_map_name(name: str) -> str:
    """Return `name` if a ``.scen`` line can hold it, else raise ValueError saying why.

    A name must be a non-empty string without tabs, line ends, or spaces at either end (a
    reader strips those), in Latin-1, the encoding the readers decode.

    >>> check_map_name("maze.map")
    'maze.map'
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"map name must be a non-empty string, got {name!r}")
    if any(char in name for char in "\t\r\n") or name != name.strip() or not _latin1(name):
        raise ValueError(
            f"map name {name!r} cannot be written to a .scen file: no tabs, line ends, "
            "or spaces at either end, Latin-1 characters only"
        )
    return name


def _latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


def _write_atomic(path: Path, text: str) -> None:
    # mkstemp makes owner-only files; keep the old file's mode, or the usual 0644.
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    folder = path.parent if str(path.parent) else Path(".")
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        os.fchmod(handle, mode)
        with os.fdopen(handle, "wb") as temp:
            temp.write(text.encode("latin-1"))  # what the readers decode
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
