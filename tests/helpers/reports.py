"""Reports as their readers see them: JSON, read back from a file or round-tripped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sim.app.report import Report


def read_report(path: Path) -> dict[str, Any]:
    """The report file at `path`, parsed."""
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def as_read(report: Report) -> dict[str, Any]:
    """`report` after a trip through JSON (tuples become lists), as a reader of the file sees it."""
    data: dict[str, Any] = json.loads(json.dumps(report))
    return data
