"""Settings for the test suite: the real settings with a throwaway key and fast hashing."""

import os
from pathlib import Path

# The suite never reads a developer's local settings file (.env): its settings are the
# environment's and these.
os.environ.setdefault("CFPD_ENV_FILE", "")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-deployment")
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
_BASE = Path(__file__).resolve().parent.parent
# Tests keep their own broker folder and SQLite files; the bundled models' converted
# weights are the user's cache, shared with the demo (settings.CFPD_MODELS_DIR).
os.environ.setdefault("CFPD_VAR_DIR", str(_BASE / "var" / "test"))

# Under pytest-xdist (scripts/test -n 2) each worker process gets its own broker folder and
# SQLite files (pytest-django suffixes the test database's name too) and its own Redis
# database: tests flush their broker, and a worker's messages must never reach another's
# Celery workers. Set in the environment, so that the processes a test starts inherit them.
_XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _XDIST_WORKER.startswith("gw") and not os.environ.get("CFPD_XDIST_ISOLATED"):
    os.environ["CFPD_XDIST_ISOLATED"] = _XDIST_WORKER
    os.environ["CFPD_VAR_DIR"] = str(Path(os.environ["CFPD_VAR_DIR"]) / _XDIST_WORKER)
    if os.environ.get("REDIS_URL"):
        from urllib.parse import urlsplit, urlunsplit

        _redis = urlsplit(os.environ["REDIS_URL"])
        _db = int(_redis.path.strip("/") or 0) - int(_XDIST_WORKER[2:])
        if _db < 0:
            raise RuntimeError(f"REDIS_URL {os.environ['REDIS_URL']}: too few Redis databases below it for {_XDIST_WORKER}")
        os.environ["REDIS_URL"] = urlunsplit(_redis._replace(path=f"/{_db}"))

from .settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"]["BACKEND"] = "django.contrib.staticfiles.storage.StaticFilesStorage"  # noqa: F405
# Serve static files from the apps' folders, as runserver does, without collectstatic.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):  # noqa: F405
    # A file, not memory, so that worker processes started by the tests share it.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-cfpd.sqlite3")}  # noqa: F405

# Each test starts with an empty dashboard cache (tests/conftest.py clears it); the Redis
# cache of production is not needed to test the dashboards.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "cfpd-tests"}}
