"""The example script runs and prints what it says."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "quickstart.py"


def test_quickstart_runs():
    out = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("loaded 3674 triangles")
    assert "hit the bunny" in lines[1]
    assert "counts per ray [0, 2]" in out  # a closed mesh: every ray enters and leaves
    assert "any_hit on a segment through the bunny: True" in out
    assert "scene instances hit: [0, 1]" in out
    assert "scene contains: [True, True, False]" in out


def test_points_example_runs():
    script = EXAMPLE.parent / "points.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout
    assert out.startswith("pick: point 210 of set 0 at [1.0, 0.5, 0.0]")
    assert "within 0.03 of the ray: 20 points" in out
    assert "nearest: sets [1, 0], indices [1, 210]" in out
