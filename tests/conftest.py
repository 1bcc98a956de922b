"""Shared fixtures: the personas every permission test uses (healthchecks' alice/bob
style): two authors, a third author who reviews, a reviewer, an analyst, an outsider.
And the rule of which pass runs which test (tests/passes.py)."""

import os
from contextlib import contextmanager

import pytest

from tests.passes import pytest_collection_modifyitems, pytest_report_header  # noqa: F401

# The real-browser fixtures (`page`, ...), for the browser tests in every room's folder.
pytest_plugins = ["tests.browser_support"]

from accounts.services import create_user_with_role

PASSWORD = "persona-pass-123"


def _persona(username, role=None, **kwargs):
    user, _ = create_user_with_role(username, PASSWORD, role=role, **kwargs)
    return user


@contextmanager
def rows_for_the_module(django_db_blocker):
    """Rows made once for a module's tests, in a transaction open for the whole module and
    rolled back after its last test (issue 37: a fixture of three benchmark families took
    1.5 s per test). Each test then runs in a savepoint inside it (pytest-django's `db`,
    as Django's TestCase.setUpTestData does), so every test starts from the same rows and
    none sees another's. For modules whose tests all use the database without
    `transaction=True`; a module fixture built with it is requested by every test of the
    module (a test that did not would still see the rows, made by an earlier test)."""
    from django.db import transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture(autouse=True)
def _fresh_adaptive_limits():
    """A model's adaptive limit and pauses learnt in one test must not hold back another's
    (model ids repeat after a rollback)."""
    from gateway import limits
    from runs_app import execution

    if limits._limiter is not None:
        limits._limiter.forget_adaptive()
    execution._throughput_recorded.clear()


@pytest.fixture(autouse=True)
def _empty_cache():
    """Cached dashboards of one test must not answer another (ids repeat after a rollback)."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def author(db):
    return _persona("alice", "authors")


@pytest.fixture
def second_author(db):
    return _persona("bob", "authors")


@pytest.fixture
def third_author(db):
    return _persona("carol", "authors")


@pytest.fixture
def reviewer(db):
    return _persona("rita", "reviewers")


@pytest.fixture
def analyst(db):
    return _persona("andy", "analysts")


@pytest.fixture
def outsider(db):
    return _persona("oscar")


@pytest.fixture
def admin_user(db):
    return _persona("root", "authors", superuser=True)


@pytest.fixture
def demo_actors(db):
    from scenarios_app.actors import import_actors
    from scenarios_app.transfer import read_text

    import_actors(read_text("scenarios_app/fixtures/demo_actors.csv"))


def pytest_configure(config):
    """A SQLite test database left by an earlier session is recreated by Django, but its
    WAL files are not: stale ones make SQLite report a disk I/O error. Remove them.
    And the rows of a `serialized_rollback` test put back table by table (tests/db_restore.py),
    the test databases made from a migrated copy (tests/migrated.py)."""
    from django.conf import settings

    from tests import db_restore, migrated

    db_restore.install()
    migrated.install()

    test_name = settings.DATABASES["default"].get("TEST", {}).get("NAME")
    if test_name and settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.remove(test_name + suffix)
            except FileNotFoundError:
                pass


@pytest.fixture
def worker(monkeypatch):
    """The worker, run in place: `queued` holds the figures a page sent it, `run()`
    computes them as `analysis_app.tasks.compute_figure` does."""
    from analysis_app import tasks

    class Worker:
        queued = []

        def run(self):
            while self.queued:
                tasks.compute_figure(self.queued.pop(0))

    fake = Worker()
    monkeypatch.setattr(tasks.compute_figure, "delay", fake.queued.append)
    return fake
