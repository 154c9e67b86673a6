"""What the sub-commands share about their files: argparse types and output checks.

The argparse types raise `argparse.ArgumentTypeError`, which the parser reports as one line
(``sim plan: argument --limit: ...``, exit status 2); the output checks raise `SimError`, which
`sim.commands.cli.main` reports the same way (so does `sim.files.load_file`). `check_outputs`
holds the rules for the files a run may write.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from sim.bench.peers import PEERS
from sim.errors import SimError

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
    if not folder.exists():
        raise SimError(f"{flag} {path}: folder {folder} does not exist")
    if not folder.is_dir():
        raise SimError(f"{flag} {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK):
        raise SimError(f"{flag} {path}: folder {folder} is not writable")


class OutputKind(Enum):
    """What an output file holds, so an existing file is replaced only by its own kind."""

    IMAGE = "an image"
    JSON = "a JSON file"
    JSONL = "a JSON Lines file"
    SCENE = "a scene"
    MAP = "a Moving AI map"
    SCEN = "a Moving AI scenario file"
    CSV = "a CSV file"
    GIF = "a GIF image"


@dataclass(frozen=True, slots=True)
class Output:
    """One file a run was asked to write: the flag that named it, its path, what it holds."""

    flag: str
    path: Path
    kind: OutputKind


def check_outputs(scene: Path | None, outputs: Sequence[Output]) -> None:
    """Refuse, before anything runs, every output path a run must not write.

    An output is written only if it is new or an existing regular file of its own kind: an
    image for an image; for a report, a JSON file (empty, parsing as JSON, or starting with `{`);
    for a trace, a JSON Lines file (empty, or its first line parses as JSON); for a scene, a
    file that is empty or parses as TOML; for a Moving AI map or scenario file, one that is
    empty or starts with ``type`` or ``version``. Never the scene being run (if any) or another
    output of the same run: paths are compared resolved (symbolic links, `./x` and `x`) and by
    inode (hard links). A symbolic link, a folder, a FIFO, a device or a socket is refused, and
    so is an image name whose extension Panda3D cannot write (`IMAGE_EXTENSIONS`). A `SCENE`
    output (`--save-as`) may be the scene itself: saving over it is what Ctrl+S does anyway.

    Raises:
        SimError: One line naming the flag, the path and why, e.g.
            `--report scenes/default.toml: is the scene being run`.
    """
    taken: list[tuple[str, Path]] = [] if scene is None else [("the scene being run", scene)]
    for output in outputs:
        flag, path = output.flag, output.path
        for owner, other in taken:
            if output.kind is OutputKind.SCENE and other is scene:
                continue
            if _same_file(path, other):
                where = owner if other is scene else f"also the {owner} output"
                raise SimError(f"{flag} {path}: is {where}")
        taken.append((flag, path))
        check_output(output)


def check_output(output: Output) -> None:
    """Refuse `output`'s path unless a file of its kind may be written there.

    The rules of `check_outputs` for one output on its own (for commands that run no scene):
    its folder exists and is writable, an image name has an extension Panda3D writes, and an
    existing path is a regular file of the output's kind.

    Raises:
        SimError: One line naming the flag, the path and why.
    """
    check_writable(output.flag, output.path)
    if output.kind is OutputKind.IMAGE:
        _check_image_name(output.flag, output.path)
    if output.kind is OutputKind.GIF and output.path.suffix.lower() != ".gif":
        raise SimError(f"{output.flag} {output.path}: writes a GIF; name it OUT.gif")
    if os.path.lexists(output.path):
        _check_existing(output)


def image_format(path: Path) -> str | None:
    """The image format `path`'s extension names, if Panda3D can write it (see IMAGE_EXTENSIONS).

    >>> image_format(Path("shot.PNG")), image_format(Path("scene.toml"))
    ('png', None)
    """
    return IMAGE_EXTENSIONS.get(path.suffix.lower().lstrip("."))


def looks_like_image(head: bytes) -> bool:
    """Whether `head`, a file's first bytes, starts like an image `IMAGE_EXTENSIONS` names.

    >>> looks_like_image(b"II*" + bytes(5)), looks_like_image(b"version = 1")
    (True, False)
    """
    return any(matches(head) for matches in _IMAGE_SIGNATURES.values())


def _check_image_name(flag: str, path: Path) -> None:
    if image_format(path) is None:
        known = ", ".join(f".{ext}" for ext in IMAGE_EXTENSIONS)
        what = f"cannot write {path.suffix} images" if path.suffix else "has no image extension"
        raise SimError(f"{flag} {path}: {what}; use one of {known}")


def _check_existing(output: Output) -> None:
    """Refuse an existing path unless it is a regular file of `output`'s kind."""
    flag, path = output.flag, output.path
    mode = path.lstat().st_mode
    if stat.S_ISLNK(mode):
        raise SimError(f"{flag} {path}: is a symbolic link; give the file itself")
    if not stat.S_ISREG(mode):
        raise SimError(f"{flag} {path}: is {_file_type(mode)}, not a regular file")
    try:
        with path.open("rb") as existing:
            head = existing.read(_HEAD_BYTES)
    except OSError as error:
        reason = error.strerror or error
        raise SimError(f"{flag} {path}: cannot read it to see what it holds: {reason}") from None
    if output.kind is OutputKind.IMAGE:
        fits = not head or looks_like_image(head)
    elif output.kind is OutputKind.JSON:
        fits = _looks_like_json(path, head)
    elif output.kind is OutputKind.JSONL:
        fits = _looks_like_json_lines(head)
    elif output.kind is OutputKind.CSV:
        fits = _looks_like_text(head)
    elif output.kind is OutputKind.GIF:
        fits = not head or head.startswith((b"GIF87a", b"GIF89a"))
    elif output.kind in _MOVINGAI_FIRST_WORD:
        fits = head.lower().split(maxsplit=1)[:1] in ([], [_MOVINGAI_FIRST_WORD[output.kind]])
    else:
        fits = _looks_like_toml(path, head)
    if not fits:
        raise SimError(
            f"{flag} {path}: exists and is not {output.kind.value}; refusing to replace it"
        )


# What a Moving AI file's first line starts with (``type octile``, ``version 1``).
_MOVINGAI_FIRST_WORD = {OutputKind.MAP: b"type", OutputKind.SCEN: b"version"}


def _looks_like_text(head: bytes) -> bool:
    """Empty, or UTF-8 text without NUL bytes (a table, not an image or a binary)."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:  # a character cut at the end of the head is still text
        return error.start >= len(head) - 3 and b"\0" not in head
    return b"\0" not in head


def _looks_like_toml(path: Path, head: bytes) -> bool:
    """Empty, or small enough to parse and parsing as TOML (a scene, or what may become one)."""
    if not head or path.stat().st_size > _MAX_PARSE_BYTES:
        return not head
    try:
        tomllib.loads(path.read_bytes().decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False
    return True


def _looks_like_json(path: Path, head: bytes) -> bool:
    """Empty, starting with `{` (a report), or small enough to parse and parsing as JSON."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{") or (not text and len(head) < _HEAD_BYTES):
        return True
    if path.stat().st_size > _MAX_PARSE_BYTES:
        return False
    try:
        json.loads(path.read_bytes())
    except ValueError:  # also UnicodeDecodeError
        return False
    return True


def _looks_like_json_lines(head: bytes) -> bool:
    """Empty, or a first line (within the head read) that parses as JSON, such as a trace's."""
    if not head.strip():
        return True
    first, newline, _ = head.partition(b"\n")
    if not newline and len(head) >= _HEAD_BYTES:
        return False  # a first line longer than the head read is no trace header
    try:
        json.loads(first)
    except ValueError:  # also UnicodeDecodeError
        return False
    return True


def _same_file(path: Path, other: Path) -> bool:
    """Whether two paths name one file: the same resolved path, or the same inode."""
    if os.path.realpath(path) == os.path.realpath(other):
        return True
    try:
        return os.path.samefile(path, other)
    except OSError:  # one of them does not exist (yet)
        return False


def _file_type(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _tga(head: bytes) -> bool:
    # Targa has no signature; its 18-byte header has few legal values, which text never has.
    return (
        len(head) >= 18
        and head[1] in (0, 1)
        and head[2] in (1, 2, 3, 9, 10, 11)
        and head[16] in (8, 15, 16, 24, 32)
        and head[12:14] != b"\0\0"
        and head[14:16] != b"\0\0"
    )


def _bmp(head: bytes) -> bool:
    # "BM" and then, at byte 14, the size of one of the known info headers.
    return head.startswith(b"BM") and len(head) > 14 and head[14] in (12, 40, 52, 56, 108, 124)


def _pnm(head: bytes) -> bool:
    return len(head) >= 3 and head[0:1] == b"P" and head[1:2] in b"123456" and head[2:3].isspace()


def _prefix(*signatures: bytes) -> Callable[[bytes], bool]:
    return lambda head: head.startswith(signatures)


# The formats Panda3D 1.10's PNMFileTypeRegistry writes here that a file can be recognised by,
# with how each file starts (tests/unit/test_output_paths.py writes each one through Panda3D).
# Left out: raw .img and SoftImage .pic (no reliable signature), .pfm floats, .pbm/.pgm (Panda3D
# writes colour .ppm data under those names), and the read-only stb_image formats (.gif, .psd).
_IMAGE_SIGNATURES: dict[str, Callable[[bytes], bool]] = {
    "png": _prefix(b"\x89PNG\r\n\x1a\n"),
    "jpeg": _prefix(b"\xff\xd8\xff"),
    "bmp": _bmp,
    "tga": _tga,
    "tiff": _prefix(b"II*\x00", b"MM\x00*"),
    "pnm": _pnm,
    "sgi": _prefix(b"\x01\xda"),
    "exr": _prefix(b"v/1\x01"),
}
IMAGE_EXTENSIONS: dict[str, str] = {
    "png": "png",
    "jpg": "jpeg",
    "jpeg": "jpeg",
    "bmp": "bmp",
    "tga": "tga",
    "tif": "tiff",
    "tiff": "tiff",
    "ppm": "pnm",
    "pnm": "pnm",
    "sgi": "sgi",
    "rgb": "sgi",
    "exr": "exr",
}
"""Image extensions `--screenshot` takes (lower case), each with its format's name."""
_HEAD_BYTES = 64 * 1024
_MAX_PARSE_BYTES = 16 * 1024 * 1024


BINARY_PEERS = ("warthog",)
"""Peers run as programs of their own, named by an environment variable (`sim bench --gppc`)."""


def peer_list(text: str) -> list[str]:
    """Parse ``--peers``: comma-separated names, or 'all', or 'none'."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if names == ["all"]:
        return list(PEERS)
    if names == ["none"] or not names:
        return []
    known = [*PEERS, *BINARY_PEERS]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown peer {unknown[0]!r}; choose from {', '.join(known)}, all, none"
        )
    return list(dict.fromkeys(names))
