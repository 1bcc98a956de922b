"""Settings come from the environment and are safe by default."""

import os
import subprocess
import sys

import pytest

BASE_ENV = {k: v for k, v in os.environ.items()
            if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE", "SECURE_SSL_REDIRECT",
                         "DJANGO_ALLOW_ASYNC_UNSAFE")}  # the browser tests set it for Playwright


def manage(*args, **env):
    return subprocess.run([sys.executable, "manage.py", *args], capture_output=True, text=True,
                          env={**BASE_ENV, "DJANGO_SETTINGS_MODULE": "cfpd_site.settings", "CFPD_ENV_FILE": "", **env}, timeout=120)


def test_check_deploy_is_clean_when_debug_is_off():
    result = manage("check", "--deploy", "--fail-level", "WARNING", SECRET_KEY="k" * 64 + "-Zq9!x")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_without_a_secret_key_and_debug_off_it_refuses_to_start():
    result = manage("check")
    assert result.returncode != 0
    assert "SECRET_KEY is not set: set SECRET_KEY (or SECRET_KEY_FILE), or DEBUG=1 for development" in result.stderr


def test_a_bad_boolean_names_the_variable():
    result = manage("check", DEBUG="perhaps")
    assert result.returncode != 0 and "DEBUG='perhaps' is not a boolean" in result.stderr


@pytest.mark.django_db
def test_database_and_broker_follow_the_environment(settings):
    from django.db import connection

    expected = "postgresql" if os.environ.get("DATABASE_URL") else "sqlite"
    assert connection.vendor == expected
    if os.environ.get("REDIS_URL"):
        assert settings.CELERY_BROKER_URL == os.environ["REDIS_URL"]
    else:
        assert settings.CELERY_BROKER_URL.startswith("filesystem://")


def test_the_local_settings_file_is_read_and_the_environment_wins(tmp_path):
    env_file = tmp_path / "local.env"
    env_file.write_text("SECRET_KEY=from-the-file-" + "k" * 50 + "\nDEBUG=1\nCFPD_LOCAL_THREADS=3\n")
    code = ("from django.conf import settings; "
            "print(settings.SECRET_KEY[:14], settings.DEBUG, settings.CFPD_LOCAL_THREADS)")
    read = manage("shell", "-c", code, CFPD_ENV_FILE=str(env_file))
    assert read.returncode == 0, read.stderr
    assert read.stdout.splitlines()[-1].split() == ["from-the-file-", "True", "3"]
    overridden = manage("shell", "-c", code, CFPD_ENV_FILE=str(env_file), CFPD_LOCAL_THREADS="2")
    assert overridden.stdout.splitlines()[-1].split() == ["from-the-file-", "True", "2"]
