import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: Rays or points left out of exact comparisons because they pass within rounding of a
#: shared edge or vertex (where raypick's watertight answer may differ from a float64
#: oracle's or trimesh's), by test. Printed at the end of the run.
EDGE_CASES: dict = {}


@pytest.fixture
def edge_report(request):
    def report(count: int, total: int, what: str = "rays"):
        EDGE_CASES[request.node.nodeid] = f"{count} of {total} {what} at shared edges/ties"

    return report


def pytest_terminal_summary(terminalreporter):
    if EDGE_CASES:
        terminalreporter.section("edge cases (compared loosely, reported here)")
        for k, v in sorted(EDGE_CASES.items()):
            terminalreporter.write_line(f"{k}: {v}")
