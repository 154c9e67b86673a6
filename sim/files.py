"""Files every layer reads and writes: one-line read errors and atomic writes.

The bench, the lab, the app and the commands all read maps and write reports; these helpers sit
below all of them, so none has to import another's to share them.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from sim.errors import SimError
from sim.navigation import MapFormatError

T = TypeVar("T")

INDENTED_ENTRIES_AT_MOST = 2_000
"""A JSON file whose top-level lists hold more than this many entries is written on one line."""


def load_file(reader: Callable[[Path], T], path: Path) -> T:
    """Call ``reader(path)``, turning file and Moving AI format problems into one-line SimErrors."""
    try:
        return reader(path)
    except FileNotFoundError:
        raise SimError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SimError(f"{path}: is a directory, not a file") from None
    except OSError as error:
        raise SimError(f"{path}: cannot read: {error.strerror or error}") from None
    except MapFormatError as error:
        raise SimError(str(error)) from None


def write_json_atomic(path: Path, data: Any) -> None:
    """Write `data` as JSON to `path` so a reader sees the old file or the new one, never half.

    Indented for people to read, unless its top-level lists hold more than
    `INDENTED_ENTRIES_AT_MOST` entries: then on one line, the same JSON.

    Raises:
        OSError: As `write_bytes_atomic`; `path` is left as it was.
    """
    if _top_level_entries(data) > INDENTED_ENTRIES_AT_MOST:
        # Indenting runs json's pure-Python encoder: 1.5 s for 20,000 objects, every second.
        text = json.dumps(data, separators=(",", ":"))
    else:
        text = json.dumps(data, indent=2)
    write_bytes_atomic(path, (text + "\n").encode("utf-8"))


def _top_level_entries(data: Any) -> int:
    """How many entries the lists at the top of `data` (a report's objects, agents) hold."""
    if not isinstance(data, dict):
        return 0
    return sum(len(value) for value in data.values() if isinstance(value, list))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so a reader sees the old file or the new one, never half.

    See `atomic_writer`, which this writes through.

    Raises:
        OSError: The folder is not writable or the disk is full; `path` is left as it was.
    """
    with atomic_writer(path) as file:
        file.write(data)


@contextlib.contextmanager
def atomic_writer(path: Path) -> Iterator[IO[bytes]]:
    """A binary file to write `path`'s new content into, put in `path`'s place when it closes.

    The bytes go to a temporary file in the same folder, are flushed to disk, then renamed over
    `path` (a rename within one file system is atomic on POSIX), so an output written piece by
    piece (a GIF, frame after frame) never stands half-written, nor does a full disk truncate
    the old one. If the block raises, or the process is killed before the rename, `path` stays
    as it was; a kill leaves a hidden `.NAME.*.tmp` file behind.

    Raises:
        OSError: The folder is not writable or the disk is full; `path` is left as it was.
    """
    # mkstemp makes owner-only files; keep the old file's mode, or the usual 0644.
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(handle, mode)
        with os.fdopen(handle, "wb") as temp:
            yield temp
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
