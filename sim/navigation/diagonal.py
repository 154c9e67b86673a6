"""The four diagonal rules of a grid: when a diagonal step may pass its two orthogonal corners.

A diagonal step from ``(r, c)`` to ``(r + dr, c + dc)`` passes between two orthogonal cells,
``(r + dr, c)`` and ``(r, c + dc)``, its *corners*. The rules, as in the well-known grid
visualizers (PathFinding.js's ``DiagonalMovement``) and Godot's ``AStarGrid2D``:

- ``never``: no diagonal steps (4-connected moves).
- ``no-corner-cutting``: both corners walkable (the Moving AI rule; our 8-connected default).
- ``one-obstacle``: at least one corner walkable (a step may pass one blocked corner).
- ``always``: any corners (only the two end cells of the step must be walkable).

Every rule is symmetric: the step from ``a`` to ``b`` passes the same two corners as the step
back. `find_path` also takes ``True`` (no-corner-cutting) and ``False`` (never), its old
meanings (numpy bools too); `parse_diagonal` turns any of these into a `DiagonalRule`.

>>> parse_diagonal(True), parse_diagonal("always")
(<DiagonalRule.NO_CORNER_CUTTING: 'no-corner-cutting'>, <DiagonalRule.ALWAYS: 'always'>)
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np


class DiagonalRule(StrEnum):
    """When a diagonal step is legal (see the module docstring)."""

    NEVER = "never"
    NO_CORNER_CUTTING = "no-corner-cutting"
    ONE_OBSTACLE = "one-obstacle"
    ALWAYS = "always"

    @property
    def corners_needed(self) -> int:
        """How many of a diagonal step's two corners must be walkable (NEVER: 3, none is legal).

        >>> [rule.corners_needed for rule in DiagonalRule]
        [3, 2, 1, 0]
        """
        return _CORNERS_NEEDED[self]

    @property
    def code(self) -> int:
        """The rule's number in the C kernel (``_kernel.c``): 0 to 3 in declaration order.

        >>> DiagonalRule.ONE_OBSTACLE.code
        2
        """
        return _CODES[self]

    @property
    def next(self) -> DiagonalRule:
        """The rule after this one, round the four (the app's J key steps through them).

        >>> DiagonalRule.ALWAYS.next
        <DiagonalRule.NEVER: 'never'>
        """
        rules = list(DiagonalRule)
        return rules[(rules.index(self) + 1) % len(rules)]


_CORNERS_NEEDED = {
    DiagonalRule.NEVER: 3,
    DiagonalRule.NO_CORNER_CUTTING: 2,
    DiagonalRule.ONE_OBSTACLE: 1,
    DiagonalRule.ALWAYS: 0,
}
_CODES = {rule: code for code, rule in enumerate(DiagonalRule)}

DIAGONAL_CHOICES: tuple[str, ...] = tuple(rule.value for rule in DiagonalRule)
"""The rule names, in order: what a scene's ``[grid] diagonal`` and `find_path` take."""


def parse_diagonal(value: object) -> DiagonalRule:
    """Return the rule `value` names, or raise ValueError naming it and the choices.

    True is no-corner-cutting and False never (the old meanings of `find_path`'s
    ``diagonal``); a `DiagonalRule` or one of its names is itself. Anything else (another
    string, None, 0 or 1 as ints) is refused: a string such as "always" used to be
    silently taken as True.

    >>> parse_diagonal(False)
    <DiagonalRule.NEVER: 'never'>
    >>> parse_diagonal("corner")
    Traceback (most recent call last):
    ...
    ValueError: diagonal must be True, False or one of never, no-corner-cutting, one-obstacle, always; got 'corner'
    """  # noqa: E501
    if isinstance(value, bool | np.bool_):
        return DiagonalRule.NO_CORNER_CUTTING if value else DiagonalRule.NEVER
    if isinstance(value, str):
        try:
            return DiagonalRule(value)
        except ValueError:
            pass
    choices = ", ".join(DIAGONAL_CHOICES)
    raise ValueError(f"diagonal must be True, False or one of {choices}; got {value!r}")
