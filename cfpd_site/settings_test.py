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
