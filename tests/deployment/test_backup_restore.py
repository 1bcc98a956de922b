"""Backups (issue 42, docs/operations.md "Backups"): a database with coded answers
and the tallies the figures read, saved with `pg_dump --format=custom` and put into an empty
database with `pg_restore`, exactly as the operations guide says; every table comes back row
for row, the sequences where they were (the next row gets a new id), and a figure made from
the restored database is the figure made before."""

import os
import subprocess
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tests import migrated
from tests.deployment.test_two_disks import ROOT, host_env, manage

pytestmark = pytest.mark.services


def _admin_and(name_prefix: str):
    base = os.environ.get("DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if not base or not base.startswith("postgres"):
        pytest.fail("the services pass runs on PostgreSQL: DATABASE_URL is not a postgres:// address")
    parts = urlsplit(base)
    name = f"{name_prefix}_{uuid.uuid4().hex[:8]}"
    return urlunsplit(parts._replace(path="/postgres")), urlunsplit(parts._replace(path=f"/{name}")), name


@pytest.fixture
def databases():
    """Two databases of their own (the one backed up and the one restored into), dropped after."""
    made = []
    admin = None
    for prefix in ("cfpd_backup", "cfpd_restored"):
        admin, url, name = _admin_and(prefix)
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append((url, name))
    yield [url for url, _ in made]
    with psycopg.connect(admin, autocommit=True) as conn:
        for _, name in made:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def table_digests(url: str) -> dict[str, tuple[int, str]]:
    """Every table of the schema: its row count and an md5 of its rows in one order."""
    with psycopg.connect(url) as conn:
        tables = [row[0] for row in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
        digests = {}
        for table in tables:
            count, digest = conn.execute(
                f'SELECT count(*), md5(coalesce(string_agg(t::text, E\'\\n\' ORDER BY t::text), \'\')) FROM "{table}" t'
            ).fetchone()
            digests[table] = (count, digest)
        return digests


def sequences(url: str) -> dict[str, int | None]:
    with psycopg.connect(url) as conn:
        return dict(conn.execute("SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public'"))


def test_a_backup_restored_into_an_empty_database_gives_back_every_answer_code_and_figure(databases, tmp_path):
    source, restored = databases
    env = host_env(tmp_path / "var", source)
    migrated.migrate(env)  # `manage.py migrate`, in effect (tests/migrated.py)
    # Coded answers, refusals and review items at a small scale (the tallies kept by triggers).
    manage(env, "load_synthetic_answers", "--questions", "60", "--models", "3", "--repeats", "2", "--seed", "5")
    before = tmp_path / "before.csv"
    manage(env, "preference_report", "--out", str(before), "--iterations", "200", "--seed", "1")

    dump = tmp_path / "cfpd.dump"
    # The guide's commands, as an operator types them.
    subprocess.run(["pg_dump", "--format=custom", "--no-owner", "--file", str(dump), source], check=True, timeout=300)
    subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "--dbname", restored, str(dump)], check=True,
                   timeout=300)

    saved, back = table_digests(source), table_digests(restored)
    assert saved == back
    assert saved["runs_app_response"][0] == 60 * 3 * 2
    with psycopg.connect(restored) as conn:
        (coded,) = conn.execute("SELECT count(*) FROM runs_app_response WHERE code <> ''").fetchone()
    assert coded > 300  # the answers' codes (the current code on each answer) came back with them
    assert sequences(restored) == sequences(source)

    # A figure made from the restored database is the figure made before.
    env_back = host_env(tmp_path / "var-restored", restored)
    after = tmp_path / "after.csv"
    manage(env_back, "preference_report", "--out", str(after), "--iterations", "200", "--seed", "1")
    assert after.read_text() == before.read_text() and len(before.read_text().splitlines()) > 3
    # And the restored database takes new rows: the tallies' triggers are there and the ids go on.
    manage(env_back, "load_synthetic_answers", "--questions", "10", "--models", "1", "--repeats", "1", "--seed", "6",
           "--benchmark", "second")
    with psycopg.connect(restored) as conn:
        (responses,) = conn.execute("SELECT count(*) FROM runs_app_response").fetchone()
    assert responses == 60 * 3 * 2 + 10
