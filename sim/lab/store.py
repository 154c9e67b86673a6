"""Finished chunks on disk, so a sweep killed midway resumes where it stopped (`--resume`).

Each finished chunk is one file, ``OUT/partial/KEY.csv`` (`sim.lab.rows` format), written to a
temporary file and renamed into place: a chunk is there whole or not at all, so a run killed at
any moment leaves no half chunk, and a resumed run that skips the chunks already there never
writes a row twice. A file that does not read back whole (edited by hand, say) counts as not
done, and so does anything there that is not a regular file (a FIFO would never end a read,
a link to ``/dev/zero`` never stop one) or is larger than a chunk of its rows can be. Files of
keys the experiment no longer has are left alone and not read.

The first run writes a marker file, `MARKER`, in the output folder: ``--resume`` only finishes
a folder that holds it (or a `partial/` folder, as runs before the marker left), so it never
replaces the results, summary or plots of a folder no sweep made.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Final

from sim.lab.rows import Row, format_rows, parse_rows
from sim.navigation.maps.input_file import read_input_file

PARTIAL_DIR: Final = "partial"
MARKER: Final = ".sim-sweep"
"""The file that says a sweep made this output folder (its text says so to a person too)."""
MARKER_TEXT: Final = "This folder holds the output of `sim sweep`; `--resume` finishes it.\n"
MAX_ROW_BYTES: Final = 4096
"""A chunk file larger than this per row (and one more for the header) is no chunk of ours."""


class ChunkStore:
    """The finished chunks of one output folder."""

    def __init__(self, out: Path) -> None:
        self.folder = out / PARTIAL_DIR

    def save(self, key: str, rows: list[Row]) -> None:
        """Keep `rows` as chunk `key`, atomically."""
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / f"{key}.csv", format_rows(rows))

    def load(self, key: str, expected_rows: int) -> list[Row] | None:
        """The rows of chunk `key`, or None if it is not done (missing, unreadable, short)."""
        path = self.folder / f"{key}.csv"
        try:
            # lstat first: a link is not followed, and a FIFO or device is never opened.
            if not stat.S_ISREG(path.lstat().st_mode):
                return None
            data = read_input_file(path, MAX_ROW_BYTES * (expected_rows + 1))
            rows = parse_rows(data.decode("utf-8"))
        except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
            return None
        return rows if len(rows) == expected_rows else None


def is_sweep_folder(out: Path) -> bool:
    """Whether `out` was made by a sweep: it holds the `MARKER` file or a `partial/` folder."""
    marker, partial = out / MARKER, out / PARTIAL_DIR
    return (marker.is_file() and not marker.is_symlink()) or (
        partial.is_dir() and not partial.is_symlink()
    )


def mark_sweep_folder(out: Path) -> None:
    """Write the `MARKER` file into `out` (once: a resumed run keeps the first one)."""
    if not (out / MARKER).exists():
        write_atomic(out / MARKER, MARKER_TEXT)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `path` through a temporary file renamed over it.

    A reader, or a run killed mid-write, sees the old file or the new one, never half of one.
    """
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data.encode("utf-8") if isinstance(data, str) else data)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, 0o644)  # mkstemp makes owner-only files; these are results
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
