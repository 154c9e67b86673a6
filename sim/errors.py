"""The one exception type that means "the user gave us bad input", and how names are echoed."""

from __future__ import annotations

_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Not control characters, yet they break a line (terminals, editors) or reorder what follows.
_LINE_BREAKS_AND_BIDI = "\x85\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_SURROGATES = range(0xD800, 0xE000)
_UNDECODABLE_BYTES = range(0xDC80, 0xDD00)  # os.fsdecode's stand-ins for bytes not UTF-8


class SimError(Exception):
    """Bad input from the user: printed by the CLI as one line `sim: <message>`, exit status 2.

    The message already names what is wrong (file, key, value); no traceback is shown.
    """


class Interrupted(KeyboardInterrupt):
    """The user's own Ctrl+C or SIGTERM, as the command's signal handlers raise it.

    A scene script that raises KeyboardInterrupt itself is switched off like any failing
    script; only this one ends the run (`sim.scripting.runner`).
    """


def shown(text: str) -> str:
    r"""`text` as it may be printed: control characters escaped, so it stays one harmless line.

    A name the user chose (a file, a scene, a map inside a scenario file) is echoed through
    this: an escape sequence in it would otherwise reach the terminal and take effect, and a
    newline would split a one-line error in two. A byte that was not UTF-8 in a file name
    (``os.fsdecode`` keeps it as a lone surrogate) is shown as that byte, ``\xe9``; anything
    else printable is kept as it is, so a name with accents or spaces reads as the user wrote
    it. What is stored (the report's JSON) keeps the true value; only printed text is escaped.

    >>> shown("maze\x1b[2J.map"), shown("two\nlines"), shown("caf\udce9.toml"), shown("café")
    ('maze\\x1b[2J.map', 'two\\nlines', 'caf\\xe9.toml', 'café')
    """
    if text.isprintable():
        return text
    return "".join(_shown_char(char) for char in text)


def storable(text: str) -> str:
    r"""`text` as valid UTF-8 for a file (the JSON report): undecodable bytes become ``\xNN``.

    A file name with bytes that are not UTF-8 reaches Python with lone surrogates in it, which
    no UTF-8 file may hold (strict JSON readers refuse them); everything else stays as it is.

    >>> storable("caf\udce9.toml"), storable("café\n")
    ('caf\\xe9.toml', 'café\n')
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_shown_char(char) if ord(char) in _SURROGATES else char for char in text)
    return text


def _shown_char(char: str) -> str:
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    code = ord(char)
    if code in _UNDECODABLE_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x20 or 0x7F <= code < 0xA0:
        return f"\\x{code:02x}"
    if code in _SURROGATES or char in _LINE_BREAKS_AND_BIDI:
        return f"\\u{code:04x}"
    return char  # a space or another character that prints: keep it
