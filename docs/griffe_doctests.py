"""A griffe extension for the docs site: show the docstrings' bare doctests as code.

Our docstrings carry doctests without an ``Examples:`` heading (pytest runs them where they
stand), so griffe would hand them to Markdown as prose, where ``[0, 1]`` on an output line reads
as a link. Fencing each run of ``>>>`` lines and its output, up to the next blank line, keeps
them code.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """Wrap each doctest (a ``>>>`` line, the lines after it, to a blank line) in a fence.

    Fences the docstring opened itself are left as they are.
    """
    out: list[str] = []
    indent: str | None = None  # the open fence's indentation; None while outside a doctest
    in_fence = False  # inside a fence the docstring opened itself: leave it alone
    for line in text.split("\n"):
        stripped = line.lstrip()
        if indent is not None and not stripped:
            out.append(f"{indent}```")
            indent = None
        elif indent is None and stripped.startswith("```"):
            in_fence = not in_fence
        elif indent is None and not in_fence and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
        out.append(line)
    if indent is not None:
        out.append(f"{indent}```")
    return "\n".join(out)


class BareDoctests(griffe.Extension):
    """Fence every object's bare doctests before its docstring is parsed."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite the docstring of `obj`, if it has one, with its doctests fenced."""
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
