"""Read raw TOML values into checked Python values, or fail with a one-line `SceneError`.

A `Reader` knows the file and the key path being read (``objects[3].pos``), so every error names
where it is. A `Table` reads one TOML table key by key, rejecting unknown keys. The value readers
all have the shape ``(at: Reader, value: object) -> checked value``; `sim.scene.file` composes them
into the scene's schema. The messages say what was expected and what was found, e.g.
``expected 3 numbers, got 2``; the tests pin many of them word for word.
"""

from __future__ import annotations

import datetime
import difflib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Final, Literal, TypeVar

from sim.scene.spec import Color, SceneError

# Panda3D stores positions as float32; beyond about 1e6 units a 1-unit cell is no longer exact.
MAX_COORDINATE: Final = 1_000_000.0
# The smallest size, distance or duration a scene may give. Panda3D computes in float32 (about 7
# significant digits, normal from 1.2e-38 to 3.4e38) and a size does not stay alone: a scale is
# inverted in every inverse transform, a cell size is squared for areas and cubed for volumes,
# and a size is divided by a distance or a frame time. From 1e-3 to MAX_COORDINATE all of those
# stay far inside float32's normal range, where 5e-324 already rounds to 0 on the way in.
MIN_SIZE: Final = 1e-3
# Angles are taken modulo 360 as they are read, so Panda3D only ever sees one turn. Past a bound
# an angle is no pose but a typo: at 1e6 a double still holds the angle to 1e-10 degrees, but
# by 1e16 not even the whole degree is known, and 1e39 is no float32 at all.
MAX_ANGLE_DEG: Final = 1_000_000.0

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)


# --- where we are in the document ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reader:
    """The file and key path being read, so every error can say where it is."""

    source: str
    path: str = ""

    def at(self, key: str | int) -> Reader:
        """The reader for a key of this table (str) or an item of this array (int)."""
        if isinstance(key, int):
            return Reader(self.source, f"{self.path}[{key}]")
        name = _toml_key(key)
        return Reader(self.source, f"{self.path}.{name}" if self.path else name)

    def error(self, problem: str) -> SceneError:
        """A one-line SceneError for `problem` at this key path."""
        where = f"{self.source}: {self.path}: " if self.path else f"{self.source}: "
        return SceneError(one_line(where + problem))


Read = Callable[[Reader, object], T]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _toml_key(key: str) -> str:
    """Spell a key as TOML would: bare if it can be, else quoted with unprintables escaped."""
    if _BARE_KEY.fullmatch(key):
        return key
    return '"' + "".join(_escape(char) for char in key) + '"'


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char.isprintable():
        return char
    return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"


class _Required(Enum):
    REQUIRED = "required"


_REQUIRED: Final = _Required.REQUIRED


class Table:
    """A TOML table being read: rejects unknown keys and reads each key with a field reader."""

    def __init__(
        self, at: Reader, value: object, known: Sequence[str], *, check_keys: bool = True
    ) -> None:
        if not isinstance(value, Mapping):
            raise at.error(f"expected a table, got {describe(value)}")
        self._at, self._data, self._known = at, value, known
        if check_keys:
            self.check_keys()

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def check_keys(self) -> None:
        """Reject the first key that is not known, suggesting the closest known one."""
        for key in self._data:
            if key in self._known:
                continue
            spelled = key if isinstance(key, str) else repr(key)
            close = difflib.get_close_matches(spelled, self._known, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"expected {either(self._known)}"
            raise self._at.at(spelled).error(f"unknown key; {hint}")

    def get(
        self, key: str, read: Read[T], default: T | Literal[_Required.REQUIRED] = _REQUIRED
    ) -> T:
        """Read `key` with `read`; a missing key is `default`, or an error if it is required."""
        if key in self._data:
            return read(self._at.at(key), self._data[key])
        if default is _REQUIRED:
            raise self._at.at(key).error("missing required key")
        return default


# --- the words of the messages ----------------------------------------------------------------


def describe(value: object) -> str:
    """Name a value's TOML type, and the value itself when it is short."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"{'integer' if isinstance(value, int) else 'float'} {short(value)}"
    if isinstance(value, str):
        return f"string {short(value)}"
    if isinstance(value, list | tuple):
        return f"an array of {len(value)}"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, datetime.date | datetime.time):
        return f"{type(value).__name__} {value.isoformat()}"
    return type(value).__name__


def short(value: object) -> str:
    """repr() cut to 40 characters; never raises, never spans lines."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's int-to-str digit limit
        return "a number too long to print"
    return text if len(text) <= 40 else text[:37] + "..."


def plain(number: float) -> str:
    """A bound as a person writes it: `0.001`, `1000000`, `86400`."""
    return f"{number:.0f}" if number >= 1 and number.is_integer() else f"{number:g}"


def thousands(number: int) -> str:
    """`25,000,000`; never raises for an int past Python's int-to-str digit limit."""
    try:
        return f"{number:,}"
    except ValueError:
        return "a number too long to print"


def gigabytes(size: int) -> str:
    """A byte count in GB (10**9 bytes), one decimal: `2.5 GB`."""
    if size.bit_length() > 1000:  # float() would overflow
        return "more GB than any machine has"
    return f"{size / 10**9:,.1f} GB"


def one_line(text: str) -> str:
    """`text` with its line breaks turned into spaces, so a message stays on one line."""
    return " ".join(text.splitlines())


def either(choices: Sequence[object]) -> str:
    """`'a' or 'b'`, or `one of 'a', 'b', 'c'`."""
    quoted = [repr(str(choice)) for choice in choices]
    return " or ".join(quoted) if len(quoted) <= 2 else "one of " + ", ".join(quoted)


# --- value readers: (where, raw value) -> checked value ---------------------------------------


def string(at: Reader, value: object) -> str:
    """Any string."""
    if not isinstance(value, str):
        raise at.error(f"expected a string, got {describe(value)}")
    return value


def non_empty_string(at: Reader, value: object) -> str:
    """A string with something besides whitespace in it."""
    text = string(at, value)
    if not text.strip():
        raise at.error("must not be empty")
    return text


def boolean(at: Reader, value: object) -> bool:
    """`true` or `false`."""
    if not isinstance(value, bool):
        raise at.error(f"expected true or false, got {describe(value)}")
    return value


def integer(at: Reader, value: object) -> int:
    """Any integer, but not a boolean."""
    # bool is an int subclass; `rows = true` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise at.error(f"expected an integer, got {describe(value)}")
    return value


def count(at: Reader, value: object) -> int:
    """An integer of 1 or more."""
    result = integer(at, value)
    if result < 1:
        raise at.error(f"must be at least 1, got {short(result)}")
    return result


def number(at: Reader, value: object) -> float:
    """A finite integer or float, as a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise at.error(f"expected a number, got {describe(value)}")
    try:
        result = float(value)
    except OverflowError:
        result = math.inf
    if not math.isfinite(result):
        raise at.error(f"must be finite, got {short(value)}")
    return result


def positive(at: Reader, value: object) -> float:
    """A number above 0."""
    result = number(at, value)
    if result <= 0:
        raise at.error(f"must be > 0, got {short(value)}")
    return result


def coordinate(at: Reader, value: object) -> float:
    """A number within `MAX_COORDINATE` of 0."""
    result = number(at, value)
    if abs(result) > MAX_COORDINATE:
        raise at.error(f"must lie within +-{MAX_COORDINATE:.0f}, got {short(value)}")
    return result


def length(at: Reader, value: object) -> float:
    """A size or distance in world units: within `MIN_SIZE`..`MAX_COORDINATE`."""
    result = coordinate(at, positive(at, value))
    if result < MIN_SIZE:
        raise at.error(f"must be at least {plain(MIN_SIZE)}, got {short(value)}")
    return result


def within(low: float, high: float) -> Read[float]:
    """A reader for a number > 0 within `low`..`high`, ends included (a speed, a duration)."""

    def read(at: Reader, value: object) -> float:
        result = positive(at, value)
        if result < low:
            raise at.error(f"must be at least {plain(low)}, got {short(value)}")
        if result > high:
            raise at.error(f"must be at most {plain(high)}, got {short(value)}")
        return result

    return read


def angle(at: Reader, value: object) -> float:
    """Degrees within `MAX_ANGLE_DEG` of 0, reduced to less than one turn, keeping the sign.

    ``math.fmod`` is exact and leaves an angle already within one turn as written (-90 stays
    -90, 270 stays 270), so only angles of a turn or more change: 720.5 is read as 0.5.
    """
    result = number(at, value)
    if abs(result) > MAX_ANGLE_DEG:
        raise at.error(f"must lie within +-{MAX_ANGLE_DEG:.0f} degrees, got {short(value)}")
    return math.fmod(result, 360.0) + 0.0  # + 0.0 turns -720's -0.0 into 0.0


def unit(at: Reader, value: object) -> float:
    """A number within 0..1, ends included."""
    result = number(at, value)
    if not 0.0 <= result <= 1.0:
        raise at.error(f"must be within 0..1, got {short(value)}")
    return result


def numbers(at: Reader, value: object, sizes: Sequence[int], item: Read[float]) -> list[float]:
    """An array of len in `sizes`, each element read with `item`."""
    wanted = " or ".join(str(size) for size in sizes)
    if not isinstance(value, list | tuple):
        raise at.error(f"expected an array of {wanted} numbers, got {describe(value)}")
    if len(value) not in sizes:
        raise at.error(f"expected {wanted} numbers, got {len(value)}")
    return [item(at.at(index), element) for index, element in enumerate(value)]


def pair(at: Reader, value: object) -> tuple[float, float]:
    """A world point `[x, y]`."""
    x, y = numbers(at, value, (2,), coordinate)
    return (x, y)


def triple(at: Reader, value: object) -> tuple[float, float, float]:
    """A world point `[x, y, z]`."""
    x, y, z = numbers(at, value, (3,), coordinate)
    return (x, y, z)


def scale(at: Reader, value: object) -> tuple[float, float, float]:
    """A size per axis `[x, y, z]`, or one number for all three."""
    if isinstance(value, list | tuple):
        if len(value) != 3:
            raise at.error(f"expected a number or 3 numbers, got {len(value)}")
        x, y, z = numbers(at, value, (3,), length)
        return (x, y, z)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise at.error(f"expected a number or an array of 3 numbers, got {describe(value)}")
    size = length(at, value)
    return (size, size, size)


def color(at: Reader, value: object) -> Color:
    """RGB or RGBA in 0..1; alpha defaults to 1."""
    components = numbers(at, value, (3, 4), unit)
    r, g, b, a = [*components, 1.0][:4]
    return (r, g, b, a)


def choice(choices: type[E]) -> Read[E]:
    """A reader for a string that must be one of an enum's values."""
    names = [str(member) for member in choices]

    def read(at: Reader, value: object) -> E:
        text = string(at, value)
        if text not in names:
            close = difflib.get_close_matches(text, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise at.error(f"expected {either(names)}, got {short(text)}{hint}")
        return choices(text)

    return read
