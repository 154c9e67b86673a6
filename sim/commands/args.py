"""What the sub-commands share to read their input: argparse types and one-line file errors.

The argparse types raise `argparse.ArgumentTypeError`, which the parser reports as one line
(``sim plan: argument --limit: ...``, exit status 2); the file helpers raise `SimError`, which
`sim.commands.cli.main` reports the same way.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from sim.errors import SimError
from sim.navigation import MapFormatError

T = TypeVar("T")

MAX_SIDE_PX = 8192


def positive_int(text: str) -> int:
    """Parse a whole number >= 1 (argparse type for frame, fps and repeat counts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def scenario_count(text: str) -> int:
    """Parse a number of scenarios or queries, >= 1 (argparse type for `sim plan`, `sim bench`).

    Its message repeats the text as given, as `sim plan` and `sim bench` always have.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """Parse a finite number > 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text}")
    return value


def window_size(text: str) -> tuple[int, int]:
    """Parse `WxH` into a pixel size, each side 16..8192 (argparse type)."""
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT such as 800x600, got {text!r}")
    width, height = (int(part) for part in parts)
    if not (16 <= width <= MAX_SIDE_PX and 16 <= height <= MAX_SIDE_PX):
        raise argparse.ArgumentTypeError(
            f"each side must be 16 to {MAX_SIDE_PX} pixels, got {width}x{height}"
        )
    return width, height


def check_writable(flag: str, path: Path) -> None:
    """Raise SimError unless a file can be written at `path` (its folder exists and is ours)."""
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise SimError(f"{flag} {path}: is a folder, expected a file name")
    if not folder.is_dir():
        raise SimError(f"{flag} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise SimError(f"{flag} {path}: folder {folder} is not writable")


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
