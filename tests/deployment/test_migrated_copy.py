"""The migrated copy the suite makes its databases from (tests/migrated.py) holds what a
fresh `manage.py migrate` makes: the same tables with the same columns, the same migrations
recorded, the same seeded rows. Compared on SQLite (a fresh migrate here costs ~30 s of CPU:
done once, in this test), where the copy is a file."""

import sqlite3
import subprocess
import sys

from tests import migrated
from tests.migrated import ROOT


def _contents(path) -> dict:
    with sqlite3.connect(path) as conn:
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        found = {}
        for table in tables:
            columns = [row[1:3] for row in conn.execute(f'PRAGMA table_info("{table}")')]
            # Rows in one order, without the times the migrations stamp (when a migration was
            # applied, when a bundled model's row was made): those differ by the run's clock.
            names = [name for name, kind in columns if kind.lower() != "datetime"]
            rows = sorted(repr(row) for row in conn.execute(
                f'SELECT {", ".join(chr(34) + n + chr(34) for n in names)} FROM "{table}"'))
            found[table] = (columns, rows)
    conn.close()
    return found


def test_the_copy_is_what_a_fresh_migrate_makes(tmp_path):
    fresh = tmp_path / "fresh" / "cfpd.sqlite3"
    fresh.parent.mkdir()
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                          env=migrated._build_env(CFPD_VAR_DIR=str(fresh.parent), SQLITE_PATH=str(fresh)),
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    copied = tmp_path / "copied" / "cfpd.sqlite3"
    migrated.into_sqlite(copied)
    fresh_contents, copied_contents = _contents(fresh), _contents(copied)
    assert sorted(copied_contents) == sorted(fresh_contents)
    assert len(fresh_contents) > 60 and len(fresh_contents["django_migrations"][1]) > 100
    assert {t: c for t, c in copied_contents.items() if c != fresh_contents[t]} == {}


def test_the_key_follows_the_migrations_and_what_they_import(tmp_path, monkeypatch):
    before = migrated.key()
    assert migrated.key() == before and len(before) == 16
    # A module a migration imports (the bundled models it registers) is part of the key.
    fake_root = tmp_path / "root"
    (fake_root / "runs_app" / "migrations").mkdir(parents=True)
    (fake_root / "gateway").mkdir()
    (fake_root / "runs_app" / "migrations" / "0001_initial.py").write_text("from gateway.local_models import BUNDLED\n")
    (fake_root / "gateway" / "local_models.py").write_text("BUNDLED = ['a']\n")
    monkeypatch.setattr(migrated, "ROOT", fake_root)
    one = migrated.key()
    (fake_root / "gateway" / "local_models.py").write_text("BUNDLED = ['a', 'b']\n")
    two = migrated.key()
    (fake_root / "runs_app" / "migrations" / "0002_more.py").write_text("from django.db import migrations\n")
    three = migrated.key()
    assert len({before, one, two, three}) == 4
