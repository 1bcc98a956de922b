"""docker-compose.yml cannot run here (no Docker engine), so its wiring is checked as data."""

import importlib
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())


APP = ("web", "worker", "worker-local")


def test_it_has_the_five_services_and_the_app_waits_for_healthy_services():
    services = COMPOSE["services"]
    assert sorted(services) == ["db", "redis", "web", "worker", "worker-local"]
    for name in ("db", "redis"):
        assert services[name]["healthcheck"]["test"]
    for name in APP:
        assert services[name]["depends_on"] == {"db": {"condition": "service_healthy"},
                                                "redis": {"condition": "service_healthy"}}


def test_web_and_worker_point_at_the_compose_database_and_broker():
    db = COMPOSE["services"]["db"]["environment"]
    url = f"postgres://{db['POSTGRES_USER']}:{db['POSTGRES_PASSWORD']}@db:5432/{db['POSTGRES_DB']}"
    for name in APP:
        env = COMPOSE["services"][name]["environment"]
        assert env["DATABASE_URL"] == url
        assert env["REDIS_URL"].startswith("redis://redis:6379/")
        assert env["DEBUG"] == "0" and env["SECRET_KEY"].startswith("${SECRET_KEY:?")


def test_the_commands_name_modules_that_exist():
    worker = COMPOSE["services"]["worker"]["command"]
    assert worker[:3] == ["celery", "-A", "cfpd_site"]
    assert importlib.import_module("cfpd_site.celery").app.main == "cfpd_site"
    web = COMPOSE["services"]["web"]["command"]
    assert "manage.py migrate" in web and "create_admin" in web
    module = re.search(r"gunicorn (\S+):application", web).group(1)
    assert hasattr(importlib.import_module(module), "application")


def test_model_keys_come_from_the_shell_not_the_file():
    worker = COMPOSE["services"]["worker"]["environment"]
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        assert worker[name] == "${" + name + ":-}"


def test_the_web_is_healthy_while_healthz_answers_and_the_storage_comes_from_the_shell():
    check = " ".join(COMPOSE["services"]["web"]["healthcheck"]["test"])
    assert "http://127.0.0.1:8000/healthz" in check
    for name in APP:  # the same storage for all, or the download is a 404
        assert COMPOSE["services"][name]["environment"]["CFPD_STORAGE_URL"] == "${CFPD_STORAGE_URL:-}"


def test_only_the_local_models_worker_takes_their_units():
    # runs_app/local_weights.py: the local models' units travel on the queue cfpd-local,
    # consumed by a worker that holds the weights.
    from runs_app.local_weights import LOCAL_QUEUE, holds_local_weights

    services = COMPOSE["services"]
    general, local = services["worker"], services["worker-local"]
    assert "--queues" not in general["command"]
    assert holds_local_weights(general["environment"]["CFPD_LOCAL_WEIGHTS"])[0] is False
    command = local["command"]
    assert command[command.index("--queues") + 1] == LOCAL_QUEUE
    assert holds_local_weights(local["environment"]["CFPD_LOCAL_WEIGHTS"])[0] is True
    assert local["volumes"] == ["models:/models"] and local["environment"]["CFPD_MODELS_DIR"] == "/models"
