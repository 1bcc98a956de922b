"""cfpd_site/gunicorn_conf.py ends a clean stop without the interpreter's finalization
(`_exit_now`), and only a clean one: a worker or a master ending with another status keeps it.
`os._exit` is replaced here by a recorder, so the test process goes on."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def conf(monkeypatch):
    spec = importlib.util.spec_from_file_location("gunicorn_conf_under_test", ROOT / "cfpd_site" / "gunicorn_conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    exits = []
    monkeypatch.setattr(module, "_exit_now", exits.append)
    module.exits = exits
    return module


@pytest.mark.parametrize("code, hurried", [(0, [0]), (None, [0]), (1, []), (3, []), (-1, [])])
def test_a_worker_is_hurried_only_on_a_clean_end(conf, code, hurried):
    try:
        raise SystemExit(code)
    except SystemExit:
        conf.worker_exit(None, None)  # gunicorn calls it in the `finally` of the worker's run
    assert conf.exits == hurried


def test_a_worker_ending_on_an_error_is_not_hurried(conf):
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        conf.worker_exit(None, None)
    assert conf.exits == []


@pytest.mark.parametrize("status, hurried", [(0, [0]), (3, []), (-1, [])])
def test_the_master_is_hurried_only_when_it_halts_with_status_0(conf, status, hurried):
    def halt(exit_status):  # as gunicorn's Arbiter.halt calls cfg.on_exit before sys.exit(exit_status)
        conf.on_exit(None)

    halt(status)
    assert conf.exits == hurried


def test_the_master_called_from_elsewhere_is_not_hurried(conf):
    def somewhere(exit_status):
        conf.on_exit(None)

    somewhere(0)
    assert conf.exits == []
