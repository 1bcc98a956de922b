"""A throwaway site for a bench that times code in its own process: a temporary folder as
CFPD_VAR_DIR (its SQLite database migrated there), no DATABASE_URL or REDIS_URL, Django set
up with the product's settings and the suite's fast password hasher."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def scratch_site(prefix: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ.update(CFPD_VAR_DIR=str(folder), CFPD_ENV_FILE="", DJANGO_SETTINGS_MODULE="cfpd_site.settings",
                      SECRET_KEY=os.environ.get("SECRET_KEY", "bench-only"), SECURE_SSL_REDIRECT="false")
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v0"], check=True)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # as the suite
    return folder
