"""Read a file the user named as input: a regular file, and no more bytes than a bound.

A FIFO given as a map never sends end-of-file, ``/dev/zero`` never stops, and a sparse file
can claim terabytes; reading any of them whole hangs or eats all memory. `read_input_file`
looks at the file with ``os.stat`` before opening it, so a device or a pipe is refused without
being opened (opening a FIFO blocks until a writer comes; opening a device can have effects),
and it never reads more than its bound, even from a file that grows while it is read.

It lives in `sim.navigation` because the Moving AI readers here need it and this package may
import nothing of ours outside itself; the scene reader (`sim.scene.file`) uses it too.
Problems are `OSError`s with a readable `strerror`, as a failed `open` would give, so callers
report them the way they report a missing file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class InputFileError(OSError):
    """The file is not a regular file, or is larger than the reader accepts."""


def read_input_file(path: str | Path, max_bytes: int) -> bytes:
    """Return the bytes of the regular file `path`, refusing anything else or more than `max_bytes`.

    Args:
        path: The file to read (symbolic links are followed).
        max_bytes: The largest size accepted, in bytes.

    Raises:
        IsADirectoryError: `path` is a folder (as ``open`` would say).
        InputFileError: `path` is a FIFO, a device or a socket, or holds more than `max_bytes`.
        OSError: As ``os.stat`` and ``open`` raise (no such file, no permission, ...).
        ValueError: `path` contains a NUL character.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as file:
    ...     _ = file.write(b"version 1")
    ...     file.flush()
    ...     read_input_file(file.name, 100)
    b'version 1'
    """
    _check(os.stat(path), path, max_bytes)
    # The check above and this open are two steps: O_NONBLOCK keeps the open from waiting should
    # a FIFO have taken the file's place in between, and fstat then sees what was opened.
    # Regular files ignore O_NONBLOCK.
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(handle, "rb") as file:
        _check(os.fstat(file.fileno()), path, max_bytes)
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew after the check, or says it is empty (as /proc files do)
        raise _too_large(path, None, max_bytes)
    return data


def _check(status: os.stat_result, path: str | Path, max_bytes: int) -> None:
    mode = status.st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "a special file")
        raise InputFileError(errno.EINVAL, f"is {kind}, not a regular file", str(path))
    if status.st_size > max_bytes:
        raise _too_large(path, status.st_size, max_bytes)


def _too_large(path: str | Path, size: int | None, max_bytes: int) -> InputFileError:
    """`size` is None when the file was found too large by reading it, not by its size."""
    # A whole number of MiB reads as file managers say it: `16 MB`.
    limit = f"{max_bytes >> 20} MB" if max_bytes % 2**20 == 0 else f"{max_bytes:,} bytes"
    problem = "past the limit of" if size is None else f"{size:,} bytes; the limit is"
    return InputFileError(errno.EFBIG, f"too large: {problem} {limit}", str(path))
