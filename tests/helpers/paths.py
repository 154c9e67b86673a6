"""Where the repository's scenes, test data, benchmark maps and test artifacts are."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SCENES_DIR = REPO_ROOT / "scenes"
DEFAULT_SCENE = SCENES_DIR / "default.toml"
ODD_SCENES = REPO_ROOT / "tests" / "data" / "odd_scenes"
ARTIFACTS = REPO_ROOT / "artifacts"


def artifact(name: str) -> Path:
    """Where a test saves a picture for a person to look at: artifacts/`name` (folder created)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name


def movingai_dir() -> Path:
    """Where the shared Moving AI maps live: $MOVINGAI_DIR, else ../shared/benchmarks/movingai."""
    override = os.environ.get("MOVINGAI_DIR")
    if override:
        return Path(override)
    return REPO_ROOT.parent / "shared" / "benchmarks" / "movingai"
