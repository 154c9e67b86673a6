"""BillboardLabels: many small camera-facing texts in the 3D scene, updated by key.

Built for per-cell numbers: each frame the caller says which keys show which text where, and
only the labels whose text or place changed are touched. A TextNode re-generates its geometry
when its text changes, so keeping one node per key (and hiding, not deleting, the ones not shown
this time) keeps a scrubbed view cheap: most cells keep their text from one step to the next.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from panda3d.core import NodePath, TextNode

Point = tuple[float, float, float]


@dataclass(slots=True)
class _Label:
    node: NodePath  # the billboarded pivot at the label's point
    text: NodePath[TextNode]  # under the pivot, shifted in its own frame to centre the block
    content: str
    pos: Point


class BillboardLabels:
    """Camera-facing text labels under a node "labels" (lighting off), one per key.

    Args:
        parent: Node to attach the "labels" node to (usually the scene root).
        color: Text colour, RGBA in 0..1.
        height: Height of one line of text in world units.
        keep: Hidden labels kept for reuse; past this many, the hidden ones are removed (so a
            long run over a large grid does not grow without bound).
    """

    def __init__(
        self, parent: NodePath, *, color: Sequence[float], height: float, keep: int = 2000
    ) -> None:
        if not height > 0.0:
            raise ValueError(f"height must be > 0, got {height!r}")
        self._keep = keep
        self._node = parent.attach_new_node("labels")
        self._node.set_light_off()
        self._color = tuple(float(c) for c in color)
        self._height = float(height)
        self._labels: dict[int, _Label] = {}
        self._shown: set[int] = set()

    @property
    def node(self) -> NodePath:
        """The "labels" node; one child per label ever shown."""
        return self._node

    @property
    def shown(self) -> int:
        """How many labels are on screen after the last `show`."""
        return len(self._shown)

    def text_of(self, key: int) -> str | None:
        """The text label `key` shows now, or None when it is hidden."""
        label = self._labels.get(key)
        return label.content if label is not None and key in self._shown else None

    def show(self, entries: Mapping[int, tuple[Point, str]]) -> None:
        """Show exactly `entries` (key -> (world point of the text's centre, text)); hide the rest.

        Text may hold several lines; the block is centred on the point.
        """
        for key in self._shown - entries.keys():
            self._labels[key].node.hide()
        for key, (pos, text) in entries.items():
            label = self._labels.get(key)
            if label is None:
                label = self._make(key)
            if label.content != text:
                label.text.node().set_text(text)
                label.content = text
                # TextNode puts the first baseline at its origin and further lines below it:
                # shift the block (in the camera-facing frame, in lines) so its middle is the
                # pivot; 0.3 of a line is roughly a line's middle above its baseline.
                label.text.set_z((text.count("\n")) * 0.5 - 0.3)
            if label.pos != pos:
                label.node.set_pos(*pos)
                label.pos = pos
            if key not in self._shown:
                label.node.show()
        self._shown = set(entries)
        if len(self._labels) > self._keep:
            for key in [key for key in self._labels if key not in self._shown]:
                self._labels.pop(key).node.remove_node()

    @property
    def kept(self) -> int:
        """Labels held, shown or hidden."""
        return len(self._labels)

    def hide_all(self) -> None:
        """Hide every label (they are kept for reuse)."""
        self.show({})

    def destroy(self) -> None:
        """Remove every label; the object must not be used again."""
        self._node.remove_node()
        self._labels.clear()
        self._shown.clear()

    def _make(self, key: int) -> _Label:
        text_node = TextNode(f"label-{key}")
        text_node.set_align(TextNode.A_center)
        text_node.set_text_color(*self._color)
        node = self._node.attach_new_node(f"label-{key}")
        node.set_scale(self._height)
        node.set_billboard_point_eye()
        node.hide()
        label = _Label(node, node.attach_new_node(text_node), "", (float("nan"),) * 3)
        self._labels[key] = label
        return label
