"""Project folders and the tunables shared by more than one layer."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = REPO_ROOT / "models"
SCENES_DIR = REPO_ROOT / "scenes"
DEFAULT_SCENE = SCENES_DIR / "default.toml"

# Headless runs step a non-real-time clock at this rate, so dt is exactly 1/60 s.
DEFAULT_FIXED_FPS = 60
