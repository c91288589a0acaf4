"""The plugin paper's theorem module is the tutorial's own file (docs/gda_theorem.py), so the
tutorial and the plugin route are tested on the same theorem."""

from __future__ import annotations

import runpy
from pathlib import Path

_tutorial = runpy.run_path(str(Path(__file__).resolve().parents[3] / "docs" / "gda_theorem.py"))
PAPER = _tutorial["PAPER"]
THEOREMS = _tutorial["THEOREMS"]
