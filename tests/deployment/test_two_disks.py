"""The product as it is deployed on several hosts (issue 42): gunicorn (as docker-compose.yml
starts it) and a Celery worker, each with its own CFPD_VAR_DIR and nothing on disk in common,
on one PostgreSQL database and one Redis. Every flow that moves a file from one process to
the other is walked from the browser's side and must work:

* "Export report" (formats_app): the button queues the report, the worker makes it, the web
  server serves the download (an HTML file, and a folder as one .zip).

(The scenario import's upload is read inside its request, and the other exports are made
inside theirs: no file crosses between processes there; docs/architecture.md, "Files
between processes".) Also /healthz on the real server: 200 with both services up, 503
naming both when neither answers."""

import io
import os
import re
import socket
import subprocess
import sys
import time
import uuid
import zipfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
import requests

from tests import migrated
from tests.deployment.s3_server import s3  # noqa: F401 (fixture)

pytestmark = pytest.mark.services

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "two-disks-" + "p" * 12


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def database():
    """A database of its own on the pass's PostgreSQL server, dropped afterwards."""
    base = os.environ.get("DATABASE_URL") or os.environ.get("TEST_DATABASE_URL")
    if not base or not base.startswith("postgres"):
        pytest.fail("the services pass runs on PostgreSQL: DATABASE_URL is not a postgres:// address")
    name = f"cfpd_two_disks_{uuid.uuid4().hex[:8]}"
    parts = urlsplit(base)
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def host_env(var_dir: Path, database_url: str, **extra) -> dict:
    """One host's environment: its own CFPD_VAR_DIR, the shared database and Redis."""
    redis_url = os.environ.get("TEST_REDIS_URL") or os.environ.get("REDIS_URL")
    var_dir.mkdir(parents=True, exist_ok=True)
    drop = ("CFPD_WARM_START", "DJANGO_SETTINGS_MODULE", "PYTEST_CURRENT_TEST")
    return {k: v for k, v in os.environ.items() if k not in drop} | {
        "DATABASE_URL": database_url, "REDIS_URL": redis_url, "CFPD_VAR_DIR": str(var_dir),
        "DJANGO_SETTINGS_MODULE": "cfpd_site.settings", "SECRET_KEY": "two-disks-" + "k" * 50, "DEBUG": "1",
        "ALLOWED_HOSTS": "127.0.0.1", "CFPD_ENV_FILE": "", "DB_POOL_MAX": "4", "CFPD_STORAGE_URL": "", **extra}


def manage(env, *args):
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def start_web(env, port):
    gunicorn = Path(sys.executable).with_name("gunicorn")
    env = env | {"GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_WORKERS": "1"}
    return subprocess.Popen([str(gunicorn), "cfpd_site.wsgi:application", "-c", "cfpd_site/gunicorn_conf.py"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_until_up(base: str, path="/accounts/login/", seconds=240):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            return requests.get(base + path, timeout=30)
        except requests.ConnectionError:
            time.sleep(0.5)
    raise AssertionError(f"{base} did not answer within {seconds} s")


def stop(process):
    process.terminate()
    try:
        return process.communicate(timeout=60)[0] or ""
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate()[0] or ""


def signed_in(base: str, username: str) -> requests.Session:
    session = requests.Session()
    session.get(base + "/accounts/login/", timeout=30)
    answer = session.post(base + "/accounts/login/", timeout=30, allow_redirects=False, data={
        "username": username, "password": PASSWORD, "csrfmiddlewaretoken": session.cookies["csrftoken"]})
    assert answer.status_code == 302, answer.text[-500:]
    return session


def export(session: requests.Session, base: str, fmt: str) -> requests.Response:
    """The dashboard's button, then the report's page until the worker has made it, then the download."""
    dashboard = session.get(base + "/analysis/cfpd/", timeout=120)
    assert dashboard.status_code == 200 and 'class="export-report"' in dashboard.text
    asked = session.post(base + "/reports/export/", timeout=30, allow_redirects=False, data={
        "page": "/analysis/cfpd/", "query": "iterations=200", "format": fmt,
        "csrfmiddlewaretoken": session.cookies["csrftoken"]})
    assert asked.status_code == 302, asked.text[-500:]
    report = asked.headers["Location"]
    deadline, state = time.monotonic() + 300, {}
    while time.monotonic() < deadline:
        state = session.get(base + report + "status.json", timeout=30).json()
        if state["status"] in ("done", "failed"):
            break
        time.sleep(1)
    assert state.get("status") == "done", f"export report ({fmt}): the worker did not make it: {state}"
    download = session.get(base + report + "download/", timeout=120, stream=True)
    assert download.status_code == 200, (
        f"export report ({fmt}): made by the worker, not found by the web server ({download.status_code})")
    return download


@pytest.mark.parametrize("storage", ["database", "object storage"])
def test_the_export_flows_work_with_web_and_worker_on_separate_disks(tmp_path, database, storage, request):
    # The files' storage: the database (nothing set), or a real S3-compatible server (SeaweedFS).
    url = request.getfixturevalue("s3").url(prefix=tmp_path.name) if storage == "object storage" else ""
    web_env = host_env(tmp_path / "web-host", database, CFPD_STORAGE_URL=url)
    worker_env = host_env(tmp_path / "worker-host", database, CFPD_STORAGE_URL=url)
    migrated.migrate(web_env)  # `manage.py migrate`, in effect (tests/migrated.py)
    manage(web_env, "load_synthetic_answers", "--questions", "400", "--models", "2", "--repeats", "1")
    manage(web_env | {"CFPD_USER_PASSWORD": PASSWORD}, "add_user", "--role", "analysts", "ana")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    web = start_web(web_env, port)
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "cfpd_site", "worker", "--pool", "threads", "--concurrency", "4",
         "--loglevel", "INFO", "-n", f"two-disks-{port}@%h"], cwd=ROOT, env=worker_env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_until_up(base)
        session = signed_in(base, "ana")
        html = export(session, base, "html")
        assert int(html.headers["Content-Length"]) == len(html.content)  # the length known before the stream
        assert "Exported from CFPD Workbench: /analysis/cfpd/?iterations=200, as ana saw it" in html.text
        folder = export(session, base, "folder")
        archive = zipfile.ZipFile(io.BytesIO(folder.content))
        assert any(re.fullmatch(r"cfpd-analysis-cfpd-report-\d+/README\.md", n) for n in archive.namelist())
        health = requests.get(base + "/healthz", timeout=30)
        assert health.status_code == 200 and health.json() == {"status": "ok", "database": "ok", "broker": "ok"}
    finally:
        web_log, worker_log = stop(web), stop(worker)
    # Neither host left a report on its own disk: both went through the storage.
    for host in ("web-host", "worker-host"):
        assert not list((tmp_path / host).rglob("report*")), (host, web_log[-2000:], worker_log[-2000:])
    with psycopg.connect(database) as conn:
        in_database = sorted(row[0] for row in conn.execute("SELECT name FROM kit_storedfile"))
    if storage == "database":
        assert [re.sub(r"\d+", "N", name) for name in in_database] == ["reports/N/report.html", "reports/N/report.zip"]
    else:
        listed = request.getfixturevalue("s3").client().list_objects_v2(Bucket="cfpd-files", Prefix=tmp_path.name)
        keys = [re.sub(r"/\d+/", "/N/", o["Key"]) for o in listed["Contents"]]
        assert in_database == [] and keys == [f"{tmp_path.name}/reports/N/report.html",
                                              f"{tmp_path.name}/reports/N/report.zip"]


def test_healthz_names_the_services_that_do_not_answer(tmp_path):
    port, nobody = free_port(), free_port()
    env = host_env(tmp_path / "web-host", f"postgres://postgres@127.0.0.1:{nobody}/cfpd",
                   REDIS_URL=f"redis://127.0.0.1:{nobody}/0")
    web = start_web(env, port)
    try:
        answer = wait_until_up(f"http://127.0.0.1:{port}", "/healthz")
    finally:
        log = stop(web)
    # Its worker stopped by itself when asked: no check left waiting on the database held it
    # until gunicorn's graceful timeout ran out and killed it (the pool's 60 s wait did).
    assert "SIGKILL" not in log and "Shutting down: Master" in log, log[-2000:]
    assert answer.status_code == 503
    body = answer.json()
    assert body["status"] == "down" and body["down"] == ["database", "broker"]
    assert body["database"].startswith("down: ") and body["broker"].startswith("down: ")
