"""What the scale benches share: their PostgreSQL database made, migrated and loaded, and
a signed-in client. No figures here; `dashboard_scale.py`, `answers_list.py` and
`answer_grid.py` import it (bench/ is on sys.path when a bench runs as a script)."""
from __future__ import annotations

import os
import sys


def recreate_database(url: str) -> None:
    """DROP (even with connections open) and CREATE the URL's database: a bench that
    starts from nothing each time (earlier runs' rows and dead tuples would slow the next)."""
    import psycopg

    admin_url, name = url.rsplit("/", 1)
    with psycopg.connect(admin_url + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def ensure_database(url: str) -> None:
    """CREATE DATABASE for the URL's database if the server has none of that name."""
    import psycopg

    admin_url, name = url.rsplit("/", 1)
    with psycopg.connect(admin_url + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
            print(f"created database {name}", file=sys.stderr)


def prepared(benchmark: str, load: bool, out, **synthetic) -> bool:
    """Django set up on the PostgreSQL database of DATABASE_URL, migrated, and the synthetic
    benchmark loaded when `load` or when it is absent (`synthetic`: load_synthetic_answers'
    options). True when it was loaded now."""
    if not os.environ["DATABASE_URL"].startswith("postgres"):
        sys.exit("DATABASE_URL must point at PostgreSQL (this bench measures the COPY-loaded scale)")
    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        print("migrating…", file=sys.stderr)
        call_command("migrate", verbosity=0)
    from benchmarks_app.models import Benchmark

    loaded = load or not Benchmark.objects.filter(name=benchmark).exists()
    if loaded:
        call_command("load_synthetic_answers", benchmark=benchmark, replace=True, seed=0, stdout=out, **synthetic)
    return loaded


def signed_in_client(username: str, role: str = "analysts"):
    """A test client signed in as `username` (made with `role` the first time)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from accounts.services import create_user_with_role

    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        user, _ = create_user_with_role(username, f"{username}-password-1", role=role)
    client = Client(SERVER_NAME="localhost")
    client.force_login(user)
    return client
