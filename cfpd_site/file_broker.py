"""kombu's file transport with messages written whole before a reader can see them.

kombu writes a message file in place (create, lock, write), and its reader moves and
reads any file it lists without taking the lock: a reader that lists the file between
its creation and its write reads an empty file, and the worker stops on a
JSONDecodeError. With a worker that sends messages itself while it consumes (the
free-form family's move 2 is queued by the worker that wrote move 1), that window is
met within minutes. Here a message is written to a private temporary file beside the
queue folder and renamed into it: a rename within one filesystem is atomic, so a
reader sees the whole message or nothing.

A reader takes a message the same way: renamed out of the queue folder into one beside
it, then read and removed. kombu's reader moves it to the system's temporary folder with
`shutil.move`, which copies when the rename fails: with the queue folder unwritable for a
while (a read-only mount, a change of owner), every message listed was copied there and
left in the queue, and once the folder was writable again the copy in the way made each
of those messages unreadable for good (shutil refuses to move onto a file that exists);
their units were asked only once the watcher sent them again, and the copies piled up.
"""

import os
import tempfile
from queue import Empty
import uuid
from time import monotonic

from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads


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

    def _get(self, queue):
        wanted = f"{queue}.msg"
        folder = self.data_folder_in
        reading = os.path.join(os.path.dirname(os.path.abspath(folder)), "reading")
        try:
            os.makedirs(reading, exist_ok=True)
        except OSError:  # the queue folder unwritable: nothing can be taken (the watcher says so)
            raise Empty() from None
        for filename in sorted(os.listdir(folder)):
            if filename.partition(".")[2] != wanted:
                continue
            taken = os.path.join(reading, filename)
            try:
                os.replace(os.path.join(folder, filename), taken)
            except OSError:  # another reader took it, or the folder refuses removals: left in place
                continue
            try:
                with open(taken, "rb") as file:
                    payload = file.read()
                os.remove(taken)
            except OSError as exc:
                raise filesystem.ChannelError(f"Cannot read file {filename!r} from queue.") from exc
            return loads(bytes_to_str(payload))
        raise Empty()


class Transport(filesystem.Transport):
    Channel = Channel
