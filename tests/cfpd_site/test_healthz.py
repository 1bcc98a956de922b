"""/healthz (cfpd_site.health): open to anyone, 200 with each service's state when the
database and the broker answer, 503 naming what is down (a real broker address nobody
listens on here; a database that is down is tested against the real server in
tests/deployment/test_two_disks.py)."""

import socket

import pytest
from celery import current_app

pytestmark = pytest.mark.django_db


def test_it_answers_anyone_with_each_services_state(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_a_broker_that_does_not_answer_is_a_503_naming_it(client, monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(current_app.conf, "broker_write_url", f"redis://127.0.0.1:{port}/0")
    monkeypatch.setattr(current_app.conf, "broker_transport", "redis")
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "down" and body["down"] == ["broker"] and body["database"] == "ok"
    assert body["broker"].startswith("down: ") and str(port) not in body["broker"]  # no address given away


def test_a_probe_by_a_pods_address_in_plain_http_is_answered(client, settings):
    settings.ALLOWED_HOSTS = ["cfpd.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    response = client.get("/healthz", HTTP_HOST="10.1.2.3:8000")  # not an allowed host, not HTTPS
    assert response.status_code == 200 and response.json()["status"] == "ok"
    assert client.get("/accounts/login/", HTTP_HOST="10.1.2.3:8000").status_code == 400  # every other page: refused
    assert client.post("/healthz").status_code == 405
