"""A report's download through the files' storage (issue 42): one file of SIZE MiB saved, then
read as the download view reads it (FileResponse's 4 KiB blocks), for each storage side by
side, interleaved, REPEATS times: the database (PostgreSQL, kit.file_store.DatabaseStorage),
object storage (SeaweedFS started here, kit.file_store.ObjectStorage, streamed) and, for
comparison, django-storages' own S3Storage read (its S3File downloads the object first).
Prints one JSON line per storage and repeat: seconds to save and to stream, and the peak of
Python's allocations while streaming (tracemalloc, a separate read: it slows the timed one).

    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/cfpd_bench .venv/bin/python bench/file_download.py [SIZE] [REPEATS]
"""

import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.update(DATABASE_URL=os.environ["BENCH_DATABASE_URL"], CFPD_ENV_FILE="", DEBUG="1",
                  DJANGO_SETTINGS_MODULE="cfpd_site.settings", CFPD_VAR_DIR=tempfile.mkdtemp(prefix="cfpd-dl-"))
os.environ.pop("REDIS_URL", None)

import django  # noqa: E402

django.setup()
from django.core.files.base import ContentFile  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.http import FileResponse  # noqa: E402
from storages.backends.s3 import S3Storage  # noqa: E402

from cfpd_site.env import storage_backend  # noqa: E402
from kit.file_store import DatabaseStorage, ObjectStorage  # noqa: E402
from tests.deployment.s3_server import S3Server  # noqa: E402


def stream(storage, name) -> int:
    response = FileResponse(storage.open(name, "rb"))
    total = sum(len(block) for block in response.streaming_content)
    response.close()
    return total


def main(size_mib=64, repeats=3):
    call_command("migrate", verbosity=0)
    data = os.urandom(size_mib << 20)
    server = S3Server(Path(tempfile.mkdtemp(prefix="cfpd-dl-s3-"))).start()
    try:
        options = storage_backend(server.url(prefix="bench"))["OPTIONS"]
        systems = {"database": DatabaseStorage(), "object storage, streamed": ObjectStorage(**options),
                   "django-storages S3Storage as it is": S3Storage(**options)}
        for repeat in range(repeats):
            for system, storage in systems.items():
                name = f"bench/{repeat}/report.zip"
                started = time.perf_counter()
                storage.save(name, ContentFile(data))
                saved = time.perf_counter() - started
                started = time.perf_counter()
                assert stream(storage, name) == len(data)
                streamed = time.perf_counter() - started
                tracemalloc.start()
                stream(storage, name)
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                storage.delete(name)
                print(json.dumps({"bench": "file_download", "storage": system, "size_mib": size_mib, "repeat": repeat,
                                  "save_s": round(saved, 2), "stream_s": round(streamed, 2),
                                  "peak_alloc_mib": round(peak / 2**20, 1)}), flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
