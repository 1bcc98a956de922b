"""Where files that one process writes and another reads are kept (docs/architecture.md,
"Files between processes"): Django's storage API (`django.core.files.storage.default_storage`),
so that the web server and the workers may run on hosts with no disk in common.

Two backends, chosen by settings (CFPD_STORAGE_URL, cfpd_site.env.storage_backend):
`DatabaseStorage`, the default, keeps a file's bytes in the database in chunks (kit.models),
so any number of hosts share it with nothing more to run; `ObjectStorage` is django-storages'
S3 backend whose reads stream the object instead of downloading it whole first. Either way
a file opened for reading is read a chunk at a time: a download never holds it whole."""

from __future__ import annotations

import io

from django.core.files import File
from django.core.files.storage import Storage
from django.db import transaction
from django.utils.deconstruct import deconstructible

from .models import FileChunk, StoredFile

CHUNK_SIZE = 1 << 20  # 1 MiB a row: small enough for any PostgreSQL client, few rows for a report


def _pieces(content, size: int):
    """`content`'s bytes from its start in pieces of exactly `size` (the last may be shorter):
    a chunk's place in the file is then its index times `size`."""
    if hasattr(content, "seek") and (not hasattr(content, "seekable") or content.seekable()):
        content.seek(0)
    pending = bytearray()
    while True:
        data = content.read(size)
        if not data:
            break
        pending += data.encode() if isinstance(data, str) else data
        while len(pending) >= size:
            yield bytes(pending[:size])
            del pending[:size]
    if pending:
        yield bytes(pending)


class _ChunkReader(io.RawIOBase):
    """A stored file's bytes, fetched one chunk per read (io.BufferedReader above it asks for
    a whole chunk at a time)."""

    def __init__(self, row: StoredFile):
        super().__init__()
        self._file_id, self._size, self._chunk = row.pk, row.size, row.chunk_size
        self._position = 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer):
        if self._position >= self._size or not len(buffer):
            return 0
        index, start = divmod(self._position, self._chunk)
        data = FileChunk.objects.values_list("data", flat=True).get(file_id=self._file_id, index=index)
        piece = bytes(data[start:start + len(buffer)])
        buffer[:len(piece)] = piece
        self._position += len(piece)
        return len(piece)


class StoredFileHandle(File):
    """A storage file open for reading, its size known without reading it (Content-Length)."""

    def __init__(self, stream, name: str, size: int):
        super().__init__(stream, name)
        self.size = size


@deconstructible
class DatabaseStorage(Storage):
    """Files as rows of kit.models: written in one transaction (no reader sees half a file),
    read chunk by chunk. `url` is not offered: every download goes through a view that
    checks who asks."""

    def __init__(self, chunk_size: int = CHUNK_SIZE):
        self.chunk_size = chunk_size

    def _save(self, name, content):
        with transaction.atomic():
            row = StoredFile.objects.create(name=name, chunk_size=self.chunk_size)
            size = 0
            for index, piece in enumerate(_pieces(content, self.chunk_size)):
                FileChunk.objects.create(file=row, index=index, data=piece)
                size += len(piece)
            StoredFile.objects.filter(pk=row.pk).update(size=size)
        return name

    def _open(self, name, mode="rb"):
        if mode not in ("r", "rb"):
            raise ValueError(f"the database storage opens files for reading only, not {mode!r}: save() writes")
        row = StoredFile.objects.filter(name=name).first()
        if row is None:
            raise FileNotFoundError(f"no stored file named {name!r}")
        return StoredFileHandle(io.BufferedReader(_ChunkReader(row), buffer_size=row.chunk_size), name, row.size)

    def delete(self, name):
        StoredFile.objects.filter(name=name).delete()

    def exists(self, name):
        return StoredFile.objects.filter(name=name).exists()

    def size(self, name):
        try:
            return StoredFile.objects.values_list("size", flat=True).get(name=name)
        except StoredFile.DoesNotExist:
            raise FileNotFoundError(f"no stored file named {name!r}") from None

    def listdir(self, path):
        prefix = path.strip("/") + "/" if path.strip("/") else ""
        folders, files = set(), []
        for name in StoredFile.objects.filter(name__startswith=prefix).values_list("name", flat=True):
            head, slash, _ = name[len(prefix):].partition("/")
            if slash:
                folders.add(head)
            else:
                files.append(head)
        return sorted(folders), sorted(files)

    def get_created_time(self, name):
        return StoredFile.objects.values_list("created_at", flat=True).get(name=name)

    get_modified_time = get_accessed_time = get_created_time


def object_storage_class():
    """django-storages' S3 backend with streamed reads, built when first asked for, so that a
    deployment on the database storage never imports boto3."""
    from botocore.exceptions import ClientError
    from storages.backends.s3 import S3Storage
    from storages.utils import clean_name

    class ObjectStorage(S3Storage):
        """S3Storage writes as it does; a read streams the object's body (S3Storage's own
        file downloads it whole into memory first)."""

        def _open(self, name, mode="rb"):
            if mode not in ("r", "rb"):
                return super()._open(name, mode)
            key = self._normalize_name(clean_name(name))
            try:
                answer = self.bucket.Object(key).get()
            except ClientError as error:
                if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                    raise FileNotFoundError(f"no stored file named {name!r}") from None
                raise
            return StoredFileHandle(answer["Body"], name, answer["ContentLength"])

    return ObjectStorage


def ObjectStorage(**options):  # noqa: N802 (a class to STORAGES, made on first use)
    return object_storage_class()(**options)
