"""Markdown pipe tables, as `sim bench` prints them and writes them into RESULTS.md."""

from __future__ import annotations


def pipe_table(cells: list[list[str]]) -> list[str]:
    """Render rows of cells, the first one the header, as an aligned Markdown pipe table.

    >>> for line in pipe_table([["a", "bb"], ["ccc", "d"]]):
    ...     print(line)
    | a   | bb |
    |-----|----|
    | ccc | d  |
    """
    widths = [max(len(line[i]) for line in cells) for i in range(len(cells[0]))]
    rendered = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |"
        for line in cells
    ]
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return [rendered[0], rule, *rendered[1:]]
