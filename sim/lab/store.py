"""Finished chunks on disk, so a sweep killed midway resumes where it stopped (`--resume`).

Each finished chunk is one file, ``OUT/partial/KEY.csv`` (`sim.lab.rows` format), written to a
temporary file and renamed into place: a chunk is there whole or not at all, so a run killed at
any moment leaves no half chunk, and a resumed run that skips the chunks already there never
writes a row twice. A file that does not read back whole (edited by hand, say) counts as not
done. Files of keys the experiment no longer has are left alone and not read.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from sim.lab.rows import Row, format_rows, parse_rows

PARTIAL_DIR = "partial"


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
        try:
            rows = parse_rows((self.folder / f"{key}.csv").read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        return rows if len(rows) == expected_rows else None


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
