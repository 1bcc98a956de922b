"""A migrated database, made once per set of migrations and copied wherever the suite needs an
empty database migrated: the test databases pytest-django makes (two per pass), and the
databases of the tests that start the product as deployed (the fault suites' own PostgreSQL,
the two-disk hosts, the backup, gunicorn, `scripts/serve`).

`manage.py migrate` on an empty database costs ~30 s of CPU here (Django renders the models'
states 7,600 times over the 78 migrations: `python -m cProfile manage.py migrate`), and the
suite made about a dozen. The copy is made by that same command, once, into
`var/test-cache/` (a SQLite file; for PostgreSQL a template database on the pass's server,
`cfpd_migrated_<key>`, and its plain dump for the servers the fault suites start), under a
file lock so that the pass's two processes make it once. The key hashes what decides its
contents: every migration file, the project modules they import (the bundled models they
register, the seeded rows) and Django's version (the settings do not change them: made under
`cfpd_site.settings_test`, used also where a test runs the product's settings); a change to any makes a
new copy. A copy's tables are then checked by `migrate` itself wherever the product runs it
(a no-op in seconds: it finds every migration applied).

Tested by what uses it: each test that starts from one would fail on a missing table.
`tests/deployment/test_migrated_copy.py` compares a copy with a fresh migrate."""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "var" / "test-cache"
_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.MULTILINE)


def key() -> str:
    """What decides a migrated database's contents, hashed (16 hex digits)."""
    import django

    digest = hashlib.sha256(f"{django.get_version()}\n".encode())
    migrations = sorted(ROOT.glob("*/migrations/*.py"))
    modules: set[Path] = set()
    for path in migrations:
        for found in _IMPORT.finditer(path.read_text()):
            parts = (found.group(1) or found.group(2)).split(".")
            for candidate in (ROOT.joinpath(*parts).with_suffix(".py"), ROOT.joinpath(*parts, "__init__.py")):
                if candidate.is_file():
                    modules.add(candidate)
    for path in sorted(set(migrations) | modules):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\n" + path.read_bytes())
    return digest.hexdigest()[:16]


@contextmanager
def _locked(name: str):
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _manage_migrate(env: dict) -> None:
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        raise RuntimeError(f"manage.py migrate failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}")


def _build_env(**extra) -> dict:
    drop = ("DATABASE_URL", "REDIS_URL", "SQLITE_PATH", "PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER",
            "CFPD_XDIST_ISOLATED", "CFPD_WARM_START")
    return {k: v for k, v in os.environ.items() if k not in drop} | {
        "DJANGO_SETTINGS_MODULE": "cfpd_site.settings_test", "CFPD_ENV_FILE": "",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "migrated-copy-" + "k" * 40, **extra}


# -- SQLite -------------------------------------------------------------------------------------

def sqlite_copy() -> Path:
    """The migrated SQLite file, made on first use."""
    path = CACHE / f"migrated-{key()}.sqlite3"
    with _locked(path.name):
        if not path.exists():
            with tempfile.TemporaryDirectory() as folder:
                made = Path(folder) / "cfpd.sqlite3"
                _manage_migrate(_build_env(CFPD_VAR_DIR=folder, SQLITE_PATH=str(made)))
                _sqlite_backup(made, path.with_suffix(".partial"))
                os.replace(path.with_suffix(".partial"), path)
    return path


def _sqlite_backup(source: Path, target: Path) -> None:
    """A consistent copy (SQLite's online backup: a write-ahead log left beside the file is
    folded in), then closed."""
    target.unlink(missing_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()


def into_sqlite(target: Path) -> None:
    """The file at `target` (made or replaced) becomes a migrated database."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("-wal", "-shm", "-journal"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    _sqlite_backup(sqlite_copy(), target)


# -- PostgreSQL ---------------------------------------------------------------------------------

def _on_database(url: str, name: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def postgres_template(server_url: str) -> str:
    """The name of the migrated template database on the server of `server_url` (any
    database's address there), made on first use, and its plain dump beside the SQLite copy
    (`postgres_dump`). Nobody stays connected to it: `CREATE DATABASE … TEMPLATE` needs that."""
    import psycopg

    name = f"cfpd_migrated_{key()}"
    admin = _on_database(server_url, "postgres")
    with _locked(name):
        with psycopg.connect(admin, autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            dump = CACHE / f"{name}.sql"
            if exists and dump.exists():
                return name
            building = f"{name}_building"
            conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{building}"')
        _manage_migrate(_build_env(DATABASE_URL=_on_database(server_url, building)))
        partial = dump.with_suffix(".partial")
        done = subprocess.run(["pg_dump", "--format=plain", "--no-owner", "--no-privileges", "--file", str(partial),
                               _on_database(server_url, building)], capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"pg_dump failed: {done.stderr[-2000:]}")
        os.replace(partial, dump)
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
    return name


def postgres_dump(server_url: str) -> Path:
    """The migrated database as SQL (`pg_dump --format=plain`), for a server of the suite's
    own (the fault suites'); made from the pass's template on first use."""
    name = postgres_template(server_url)
    return CACHE / f"{name}.sql"


def into_postgres(url: str, template_server_url: str | None = None) -> None:
    """The empty database at `url` becomes a migrated one: the template's dump run into it by
    psql. `template_server_url`: a server where the template may be made (the pass's), when
    `url`'s server is not it."""
    dump = postgres_dump(template_server_url or url)
    done = subprocess.run(["psql", "--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--dbname", url, "--file",
                           str(dump)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"psql could not load the migrated copy into {url}: {done.stderr[-2000:]}")


def migrate(env: dict) -> None:
    """`manage.py migrate` for an empty database in the environment `env` (its DATABASE_URL,
    or the SQLite file of its CFPD_VAR_DIR / SQLITE_PATH), in effect: the migrated copy."""
    url = env.get("DATABASE_URL") or ""
    if url.startswith("postgres"):
        pass_server = os.environ.get("TEST_DATABASE_URL") or os.environ.get("DATABASE_URL") or url
        into_postgres(url, pass_server if pass_server.startswith("postgres") else url)
    else:
        into_sqlite(Path(env.get("SQLITE_PATH") or Path(env["CFPD_VAR_DIR"]) / "cfpd.sqlite3"))


# -- pytest-django's test databases -------------------------------------------------------------

def install() -> None:
    """The test databases Django makes for pytest-django made from the copy: on PostgreSQL
    `CREATE DATABASE … TEMPLATE` the migrated template, on SQLite the migrated file copied to
    the test database's path; Django's `migrate` after it then finds every migration applied.
    The copy is made when a test database is first needed, not at collection (the fast
    lane's database-free tests never make one)."""
    from django.db.backends.postgresql.creation import DatabaseCreation as PostgresCreation
    from django.db.backends.sqlite3.creation import DatabaseCreation as SqliteCreation

    if getattr(SqliteCreation._create_test_db, "from_migrated_copy", False):
        return
    sqlite_create, postgres_create = SqliteCreation._create_test_db, PostgresCreation._create_test_db

    def sqlite_from_copy(self, verbosity, autoclobber, keepdb=False):
        name = sqlite_create(self, verbosity, autoclobber, keepdb)
        if not self.is_in_memory_db(name) and not (keepdb and os.path.exists(name)):
            into_sqlite(Path(name))
        return name

    def postgres_from_copy(self, verbosity, autoclobber, keepdb=False):
        db = self.connection.settings_dict
        if not db["TEST"].get("TEMPLATE"):
            server = urlunsplit(("postgres", f"{db.get('USER') or 'postgres'}:{db.get('PASSWORD') or ''}@"
                                 f"{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}", f"/{db['NAME']}", "", ""))
            db["TEST"]["TEMPLATE"] = postgres_template(server)
        return postgres_create(self, verbosity, autoclobber, keepdb)

    sqlite_from_copy.from_migrated_copy = postgres_from_copy.from_migrated_copy = True
    SqliteCreation._create_test_db, PostgresCreation._create_test_db = sqlite_from_copy, postgres_from_copy
