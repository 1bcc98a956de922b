"""Warm web processes: gunicorn with the product's settings (cfpd_site/gunicorn_conf.py)
loads the application once before it forks, with LiteLLM, the URLconf (every view's module)
and the templates loaded then, so a fresh worker's first request imports nothing for
seconds; the page is served by the real gunicorn."""

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests import migrated

ROOT = Path(__file__).resolve().parents[2]
CHECK = ("import sys, cfpd_site.wsgi; from django.db import connections; "
         "print('litellm' in sys.modules, 'openai' in sys.modules, 'territories_app.views' in sys.modules, "
         "'statsmodels' in sys.modules, all(c.connection is None for c in connections.all()))")


def imported(env_extra):
    env = {k: v for k, v in os.environ.items() if k != "CFPD_WARM_START"} | env_extra
    env.setdefault("DJANGO_SETTINGS_MODULE", "cfpd_site.settings")
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_the_wsgi_module_warms_up_only_when_told_to(tmp_path):
    base = {"CFPD_VAR_DIR": str(tmp_path)}
    # litellm, openai, a dashboard's views, statsmodels (through them), no database connection
    # open (the workers are forked from this process: a shared connection would be corrupted).
    assert imported(base) == ["False", "False", "False", "False", "True"]  # manage.py commands and tests stay light
    assert imported(base | {"CFPD_WARM_START": "1"}) == ["True", "True", "True", "True", "True"]
    # LiteLLM alone, as before issue 38 (bench/first_load.py measures the difference).
    assert imported(base | {"CFPD_WARM_START": "llm"}) == ["True", "True", "False", "False", "True"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_gunicorn_with_the_products_settings_preloads_and_serves(tmp_path):
    port = free_port()
    # Its own SQLite database in tmp_path (the embedded default): what is tested is gunicorn's start.
    env = {k: v for k, v in os.environ.items() if k not in ("CFPD_WARM_START", "DATABASE_URL", "REDIS_URL")} | {
        "GUNICORN_BIND": f"127.0.0.1:{port}", "GUNICORN_WORKERS": "1", "CFPD_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "cfpd_site.settings", "SECRET_KEY": "test-only-" + "k" * 50, "DEBUG": "1",
        "ALLOWED_HOSTS": "127.0.0.1", "CFPD_ENV_FILE": ""}
    migrated.migrate(env)  # `manage.py migrate`, in effect (tests/migrated.py)
    gunicorn = Path(sys.executable).with_name("gunicorn")
    server = subprocess.Popen([str(gunicorn), "cfpd_site.wsgi:application", "-c", "cfpd_site/gunicorn_conf.py"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline, status = time.monotonic() + 240, None
        while time.monotonic() < deadline and status is None:
            try:
                status = urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=30).status
            except urllib.error.HTTPError as answered:
                status = answered.code
            except OSError:
                time.sleep(0.5)
        assert status == 200
    finally:
        server.terminate()
        log = server.communicate(timeout=60)[0]
    # The master loaded the application before forking its worker (preload_app).
    assert "Booting worker" in log and log.index("Listening at") < log.index("Booting worker")
