"""SplitMix64 (Steele, Lea and Flood 2014): a tiny random stream C and Python draw alike.

The solvers' C and Python versions must make the same choices from the same seed, so both
draw from this generator, whose every step is a few 64-bit operations written the same way
in ``_mapf.c``.
"""

from __future__ import annotations

from collections.abc import MutableSequence

MASK = 2**64 - 1


class SplitMix64:
    """A seeded stream of 64-bit numbers.

    >>> stream = SplitMix64(0)
    >>> stream.next(), stream.below(10)
    (16294208416658607535, 0)
    """

    __slots__ = ("_state",)

    def __init__(self, seed: int) -> None:
        self._state = seed & MASK

    def next(self) -> int:
        """Return the next number, 0 to 2**64 - 1."""
        self._state = (self._state + 0x9E3779B97F4A7C15) & MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """Return a number from 0 to ``bound - 1`` (`bound` >= 1; the modulo bias is harmless)."""
        return self.next() % bound

    def shuffle(self, items: MutableSequence[int]) -> None:
        """Shuffle `items` in place (Fisher-Yates from the end, one draw per position).

        >>> cells = [1, 2, 3, 4]
        >>> SplitMix64(1).shuffle(cells)
        >>> sorted(cells)
        [1, 2, 3, 4]
        """
        for index in range(len(items) - 1, 0, -1):
            other = self.below(index + 1)
            items[index], items[other] = items[other], items[index]
