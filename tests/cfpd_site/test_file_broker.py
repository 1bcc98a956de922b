"""The embedded default's file broker (cfpd_site/file_broker.py): messages written whole,
and taken by a rename within the queue's own folders, never by a copy."""

import os
import tempfile

import pytest
from kombu import Connection

from cfpd_site import file_broker


@pytest.fixture
def broker(tmp_path):
    for name in ("out", "processed", "control"):
        (tmp_path / name).mkdir()
    options = {"data_folder_in": str(tmp_path / "out"), "data_folder_out": str(tmp_path / "out"),
               "processed_folder": str(tmp_path / "processed"), "control_folder": str(tmp_path / "control"),
               "store_processed": False}
    with Connection("filesystem://localhost/", transport=file_broker.Transport,
                    transport_options=options) as connection:
        yield connection, tmp_path


def _messages_in(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith(".msg"))


def test_a_message_is_read_through_the_queues_own_folder_and_removed(broker):
    connection, folder = broker
    queue = connection.SimpleQueue("units")
    before = set(_messages_in(tempfile.gettempdir()))
    queue.put({"unit": 1})
    assert len(_messages_in(folder / "out")) == 1
    message = queue.get(timeout=1)
    message.ack()
    assert message.payload == {"unit": 1}
    assert _messages_in(folder / "out") == [] and _messages_in(folder / "reading") == []
    assert set(_messages_in(tempfile.gettempdir())) == before  # nothing copied to the system's folder
    queue.close()


def test_a_message_that_cannot_be_taken_stays_and_is_read_once_it_can(broker, monkeypatch):
    connection, folder = broker
    queue = connection.SimpleQueue("units-left")
    queue.put({"unit": 2})
    assert len(_messages_in(folder / "out")) == 1
    real_replace = os.replace

    def refused(source, target):  # the queue folder refuses removals (read-only, another owner)
        if "reading" in str(target):
            raise PermissionError(1, "Operation not permitted")
        return real_replace(source, target)

    monkeypatch.setattr(file_broker.os, "replace", refused)
    with pytest.raises(queue.Empty):
        queue.get(timeout=0.2)
    assert len(_messages_in(folder / "out")) == 1  # left in place, no copy anywhere
    monkeypatch.setattr(file_broker.os, "replace", real_replace)
    message = queue.get(timeout=1)
    message.ack()
    assert message.payload == {"unit": 2}
    assert _messages_in(folder / "out") == []
    queue.close()
