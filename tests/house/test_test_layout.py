"""The tests mirror the rooms (issue 39): every test file sits in tests/<room>/, where <room> is
a room of the house (a top-level package, or bench/), or in one of the folders that span rooms
(tests/passes.ACROSS_ROOMS, the house's own rules, the fakes' own tests). And the fast lane
follows the folders: a database-free test of a room always, a database test when its room
changed."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import passes
from tests.house import ROOT

SPANNING = {"house", "fakes"} | {folder.split("/")[1] for folder in passes.ACROSS_ROOMS}


def rooms() -> set[str]:
    """The house's rooms: each top-level folder with an __init__.py, and bench/."""
    return {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests"} | {"bench"}


def misplaced(test_files, root: Path = ROOT) -> list[str]:
    """Each test file not at tests/<room or spanning folder>/test_*.py."""
    allowed = rooms() | SPANNING
    wrong = []
    for path in test_files:
        parts = path.relative_to(root).parts
        if len(parts) != 3 or parts[1] not in allowed:
            wrong.append(f"{path.relative_to(root).as_posix()}: put it in tests/<room>/ (rooms: {', '.join(sorted(allowed))})")
    return wrong


def test_every_test_file_is_in_the_folder_of_a_room_or_of_the_folders_that_span_rooms():
    files = sorted((ROOT / "tests").rglob("test_*.py"))
    assert len(files) > 200  # the whole suite is walked, not an empty glob
    assert misplaced(files) == []


def test_a_test_file_outside_the_rooms_folders_is_named():
    strays = [ROOT / "tests/unit/test_x.py", ROOT / "tests/test_y.py", ROOT / "tests/runs_app/deep/test_z.py"]
    found = misplaced(strays + [ROOT / "tests/runs_app/test_ok.py", ROOT / "tests/journeys/test_ok.py"])
    assert [line.split(":")[0] for line in found] == ["tests/unit/test_x.py", "tests/test_y.py",
                                                     "tests/runs_app/deep/test_z.py"]


def test_the_rooms_include_the_gateway_the_core_and_the_families():
    assert {"gateway", "runs_app", "encoding_app", "benchmarks_app", "scenarios_app", "crisis_app"} <= rooms()


class Item(SimpleNamespace):
    """What in_fast_lane reads of a pytest item: its file, its marks and fixtures."""

    def get_closest_marker(self, name):
        return SimpleNamespace(kwargs={"reason": "why"}) if name in self.marks else None


def item(relative, marks=(), fixtures=()):
    return Item(path=ROOT / relative, marks=set(marks), fixturenames=list(fixtures))


@pytest.mark.parametrize(("relative", "marks", "fixtures", "changed", "expected"), [
    ("tests/gateway/test_pacing.py", (), (), set(), True),  # database-free, a room's: always
    ("tests/runs_app/test_run_views.py", ("django_db",), (), set(), False),  # nothing of runs_app changed
    ("tests/runs_app/test_run_views.py", ("django_db",), (), {"runs_app/views.py"}, True),  # its room changed
    ("tests/runs_app/test_run_views.py", ("django_db",), (), {"tests/runs_app/test_run_views.py"}, True),
    ("tests/runs_app/test_run_views.py", ("services",), (), {"runs_app/views.py"}, False),  # the other pass's
    ("tests/journeys/test_operator_browser.py", ("browser",), ("page",), {"runs_app/views.py"}, False),
    ("tests/deployment/test_settings.py", (), (), set(), False),  # spans rooms: only when itself changed
    ("tests/deployment/test_settings.py", (), (), {"tests/deployment/test_settings.py"}, True),
    ("tests/faults/test_faults.py", ("django_db",), (), {"runs_app/execution.py"}, False),
])
def test_the_fast_lane_takes_a_rooms_pure_tests_always_and_its_database_tests_when_it_changed(
        relative, marks, fixtures, changed, expected):
    changed = frozenset(changed)
    assert passes.in_fast_lane(item(relative, marks, fixtures), changed, passes.changed_rooms(changed)) is expected


def test_a_test_files_room_is_its_folder():
    assert passes.room_of("tests/gateway/test_pacing.py") == "gateway"
    assert passes.room_of("tests/conftest.py") is None
