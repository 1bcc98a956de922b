"""kombu's file transport with messages written whole before a reader can see them.

kombu writes a message file in place (create, lock, write), and its reader moves and
reads any file it lists without taking the lock: a reader that lists the file between
its creation and its write reads an empty file, and the worker stops on a
JSONDecodeError. With a worker that sends messages itself while it consumes (the
free-form family's move 2 is queued by the worker that wrote move 1), that window is
met within minutes. Here a message is written to a private temporary file beside the
queue folder and renamed into it: a rename within one filesystem is atomic, so a
reader sees the whole message or nothing.
"""

import os
import tempfile
import uuid
from time import monotonic

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        filename = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        folder = self.data_folder_out
        staging = os.path.join(os.path.dirname(os.path.abspath(folder)), "staging")
        os.makedirs(staging, exist_ok=True)
        try:
            handle, temporary = tempfile.mkstemp(dir=staging, suffix=".part")
            with os.fdopen(handle, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(temporary, os.path.join(folder, filename))
        except OSError as exc:
            raise filesystem.ChannelError(f"Cannot add file {filename!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
