"""EventSource: what input bindings need from Panda3D's event system."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class EventSource(Protocol):
    """Anything with DirectObject's `accept`: ShowBase in the app, a recorder in tests.

    Bindings call it positionally, so a test double may name its parameters as it likes.
    """

    def accept(
        self, event: str, method: Callable[..., None], extra_args: list[Any] = ..., /
    ) -> None:
        """Call `method(*extra_args)` whenever Panda3D's messenger sends `event`."""
