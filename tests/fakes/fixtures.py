"""Fixtures for tests that talk to one fake OpenAI-compatible server per module: import
them by name (`from tests.fakes.fixtures import fake, server  # noqa: F401`)."""

import pytest

from tests.fakes.fake_openai import DEFAULTS, FakeOpenAI


@pytest.fixture(scope="module")
def server():
    """The module's fake server, started once."""
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def fake(server):
    """The module's fake server with its default settings and its counters at zero."""
    server.configure(**DEFAULTS)
    server.reset_stats()
    return server
