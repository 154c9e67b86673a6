"""The JSON run report (`sim run --report`): what the scene holds and where, written atomically."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sim.engine import GameObject

ScreenOf = Callable[[GameObject], tuple[int, int] | None]


def object_entry(game_object: GameObject, screen_of: ScreenOf) -> dict[str, Any]:
    """Describe one scene object: name, tag, world position and pixel position (or None)."""
    pos = game_object.node.get_pos(game_object.node.get_top())
    screen = screen_of(game_object)
    node = game_object.node
    return {
        "name": game_object.name,
        "tag": game_object.tag,
        "pos": _rounded(pos),
        "scale": _rounded(node.get_scale(node.get_top())),
        "heading": round(float(node.get_h(node.get_top())), 4),
        "screen": list(screen) if screen is not None else None,
    }


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write `data` as JSON to `path` so a reader sees the old file or the new one, never half.

    The text goes to a temporary file in the same folder, is flushed to disk, then renamed over
    `path` (a rename within one file system is atomic on POSIX).

    Raises:
        OSError: The folder is not writable or the disk is full; `path` is left as it was.
    """
    text = json.dumps(data, indent=2) + "\n"
    # mkstemp makes owner-only files; keep the old file's mode, or the usual 0644.
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(handle, mode)
        with os.fdopen(handle, "w", encoding="utf-8") as temp:
            temp.write(text)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def _rounded(point: Any) -> list[float]:
    return [round(float(value), 5) for value in point]
