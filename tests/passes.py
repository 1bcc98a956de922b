"""Which pass of scripts/test runs which test: each test runs in the pass where it can fail.

scripts/test runs the suite twice: on the embedded default (SQLite and the file broker) and on
the stack users deploy (PostgreSQL and Redis). It names the pass in CFPD_TEST_PASS
(`embedded` or `services`); without it (a developer's `pytest tests/x.py`) every collected
test runs, as before. The rule, first match wins:

* `@pytest.mark.both_passes(reason=...)`: both passes (a test that touches no database itself
  but whose subject follows DATABASE_URL / REDIS_URL, e.g. the broker round trip).
* `@pytest.mark.embedded_pass(reason=...)`: the embedded pass only.
* `@pytest.mark.services` or `@pytest.mark.browser`: the PostgreSQL + Redis pass only (the
  browser tests walk the pages users deploy; their data layer is tested in both passes below
  them).
* a test that uses the database (the `django_db` mark, or the `db`/`transactional_db`/
  `live_server` fixtures): both passes.
* anything else is database-free (pure units, hypothesis properties, parsers, statistics):
  once, in the embedded pass.

A database-free test that touches the database anyway fails by name: pytest-django refuses its
access ("Database access not allowed, use the django_db mark"), so a misfiled test cannot
pass silently in one pass and be missing from the other. A `both_passes` or `embedded_pass`
mark without its reason is a collection error.

The tests mirror the rooms (issue 39): tests/<room>/ holds every test of that room, of any kind
(pure, database, real-browser), so a change's tests are found in its room's folder; the pass
comes from the rule above, not from the folder. Beside the rooms: tests/house (the rules
over every room: import contracts, sizes, single writers, names), tests/journeys (a role's
walk through several rooms in a real browser), tests/deployment (the scripts, the compose
file, a real server), tests/faults (the whole stack under injected faults), and
tests/riddles_family (a fourth family, a tiny app of the suite's own).

`scripts/test --fast` names a third selection, `fast`, for the inner loop: on SQLite, every
database-free test of the rooms' folders and every other embedded-pass test in a file that imports a room the checkout changed
(CFPD_FAST_CHANGED, the changed paths) or that was itself changed.
"""

import ast
import functools
import json
import os
from pathlib import Path

import pytest

PASSES = ("embedded", "services", "fast")
ROOT = Path(__file__).resolve().parent.parent
DATABASE_FIXTURES = frozenset({
    "db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback", "live_server",
})


def pass_of(item) -> str:
    """'both', 'embedded' or 'services': the passes this test belongs to."""
    for name, where in (("both_passes", "both"), ("embedded_pass", "embedded")):
        mark = item.get_closest_marker(name)
        if mark is not None:
            if not mark.kwargs.get("reason"):
                raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{name} needs reason='why this pass'")
            return where
    if item.get_closest_marker("services") or item.get_closest_marker("browser"):
        return "services"
    if item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return "both"
    return "embedded"


def current_pass() -> str | None:
    name = os.environ.get("CFPD_TEST_PASS") or None
    if name is not None and name not in PASSES:
        raise pytest.UsageError(f"CFPD_TEST_PASS={name!r}: expected one of {', '.join(PASSES)}")
    return name


@functools.cache
def rooms_imported(path: str) -> frozenset[str]:
    """The top-level packages a test file imports (its rooms)."""
    tree = ast.parse(Path(path).read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return frozenset(names)


def changed_paths() -> frozenset[str]:
    return frozenset(os.environ.get("CFPD_FAST_CHANGED", "").split())


def changed_rooms(changed: frozenset[str]) -> frozenset[str]:
    return frozenset(p.split("/")[0] for p in changed if "/" in p and not p.startswith(("tests/", "docs/", "bench/")))


@functools.cache
def _relative(path: str) -> str:
    resolved = Path(path).resolve()
    return resolved.relative_to(ROOT).as_posix() if resolved.is_relative_to(ROOT) else str(resolved)


def relative_path(item) -> str:
    """The test file's path from the checkout's root (once per file, not per test)."""
    return _relative(str(item.path))


# Folders that are no room: a role's walk, the deployment, the whole stack under faults.
ACROSS_ROOMS = ("tests/journeys/", "tests/deployment/", "tests/faults/")


def is_database_free(item) -> bool:
    """A test that touches no database (pure units, properties, parsers, statistics)."""
    return pass_of(item) == "embedded" and item.get_closest_marker("embedded_pass") is None


def room_of(relative: str) -> str | None:
    """The room whose folder holds this test file (tests/<room>/...), or None."""
    parts = relative.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" else None


def in_fast_lane(item, changed: frozenset[str], rooms: frozenset[str]) -> bool:
    """Every database-free test of the rooms' folders; elsewhere, an embedded-pass test whose
    file changed, or whose room changed or is imported by it (the fault tests, the deployment
    and the journeys only when their own files changed)."""
    relative = relative_path(item)
    across = relative.startswith(ACROSS_ROOMS)
    if is_database_free(item) and not across:
        return True
    if pass_of(item) == "services":
        return False
    if relative in changed:
        return True
    if across:
        return False
    return room_of(relative) in rooms or bool(rooms & rooms_imported(str(ROOT / relative)))


def is_transactional(item) -> bool:
    """A test that commits, and so ends with a flush of every table (pytest-django's rule)."""
    mark = item.get_closest_marker("django_db")
    if mark is not None and (mark.kwargs.get("transaction") or mark.kwargs.get("reset_sequences")):
        return True
    return bool({"transactional_db", "live_server", "django_db_reset_sequences"} & set(getattr(item, "fixturenames", ())))


def group_by_file(items):
    """Under `--dist loadgroup` (scripts/test), a file's tests run in one process, in order, so
    that a module's fixtures (a fake server, a model, a real `transformers serve`) are made once;
    a module marked `spread_across_workers` (many independent tests, no module fixture: the URL
    fuzz) has its tests dealt out one by one instead.

    A file's transactional tests are a group of their own. A transactional test ends with a
    flush of every table, the reference data the migrations seeded included (domains,
    conditions, the roles' permissions); pytest-django therefore runs every other database test
    before any transactional one. scripts/test keeps that order across processes: the groups are
    dealt out in the order pytest-django sorted the tests (`--no-loadscope-reorder`), so a
    process never runs a plain database test after a flush."""
    for item in items:
        item.cfpd_unit = relative_path(item)  # a spread test: a unit of its own, weighed by its file's mean
        if item.get_closest_marker("spread_across_workers") is None:
            group = relative_path(item).removesuffix(".py").replace("/", ".")
            if is_transactional(item):
                group += ".transactional"
            item.add_marker(pytest.mark.xdist_group(name=group))
            item.cfpd_unit = group


DURATIONS = ROOT / "tests" / "durations.json"


def longest_first(items, this: str):
    """The units of work (a file's group, or one test of a spread file) in order of their
    seconds in the last measured run (tests/durations.json, written by `scripts/test-durations
    --order`), longest first: the processes take the next unit as each finishes, so the long
    ones start early and the short ones fill the end, instead of one process running a
    two-minute file alone at the end. A unit not measured yet weighs what the median unit
    does. Stable: a unit keeps its tests' order, and pytest-django's own sort (plain database
    tests, then transactional ones, then database-free ones), made after this, keeps the order
    within each kind."""
    try:
        seconds = json.loads(DURATIONS.read_text()).get("services" if this == "services" else "embedded", {})
    except (OSError, ValueError):
        return
    if not seconds:
        return
    median = sorted(seconds.values())[len(seconds) // 2]
    order = {id(item): index for index, item in enumerate(items)}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        first.setdefault(getattr(item, "cfpd_unit", ""), index)

    def key(item):
        unit = getattr(item, "cfpd_unit", "")
        return -seconds.get(unit, median), first[unit], order[id(item)]  # a unit's tests together

    items.sort(key=key)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    group_by_file(items)
    this = current_pass()
    if this is None:
        return
    kept, left = [], []
    changed = changed_paths()
    rooms = changed_rooms(changed)
    for item in items:
        keep = in_fast_lane(item, changed, rooms) if this == "fast" else pass_of(item) in (this, "both")
        (kept if keep else left).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept
    longest_first(items, this)


def pytest_report_header(config):
    this = current_pass()
    if this is None:
        return "test pass: none named (CFPD_TEST_PASS unset): every collected test runs"
    return f"test pass: {this} (CFPD_TEST_PASS); tests of the other pass only are deselected (tests/passes.py)"
