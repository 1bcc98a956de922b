"""The object storage (kit.file_store.ObjectStorage, django-storages' S3 backend) against a
real S3-compatible server, SeaweedFS (tests/deployment/s3_server.py): a file saved is in the
bucket under the address's prefix, read back in pieces from the object's stream (never
downloaded whole first), deleted with its record; a missing one is FileNotFoundError; a
wrong secret is refused by the server."""

import os

import pytest
from botocore.exceptions import ClientError
from botocore.response import StreamingBody
from django.core.files.base import ContentFile

from cfpd_site.env import storage_backend
from kit import file_store
from tests.deployment.s3_server import BUCKET, s3  # noqa: F401 (fixture)

pytestmark = pytest.mark.services


def storage_for(url):
    backend = storage_backend(url)
    assert backend["BACKEND"] == "kit.file_store.ObjectStorage"
    return file_store.ObjectStorage(**backend["OPTIONS"])


def test_a_file_goes_into_the_bucket_and_streams_back(s3):  # noqa: F811
    storage = storage_for(s3.url(prefix="site-a"))
    data = os.urandom(3 * 1024 * 1024 + 17)  # 3 MiB and a bit: several pieces of 1 MiB
    name = storage.save("reports/5/report.zip", ContentFile(data))
    assert name == "reports/5/report.zip" and storage.exists(name) and storage.size(name) == len(data)
    # In the bucket under the address's prefix, as the server itself lists it.
    listed = s3.client().list_objects_v2(Bucket=BUCKET, Prefix="site-a/")["Contents"]
    assert [(o["Key"], o["Size"]) for o in listed] == [("site-a/reports/5/report.zip", len(data))]
    with storage.open(name) as handle:
        assert handle.size == len(data)
        # The object's HTTP body, read as it arrives, not a local copy of it.
        assert isinstance(handle.file, StreamingBody)
        pieces = list(iter(lambda: handle.read(1024 * 1024), b""))
    assert b"".join(pieces) == data and [len(p) for p in pieces[:3]] == [1024 * 1024] * 3
    storage.delete(name)
    assert not storage.exists(name)
    with pytest.raises(FileNotFoundError):
        storage.open(name)


def test_a_wrong_secret_is_refused_by_the_server(s3):  # noqa: F811
    storage = storage_for(s3.url(secret="not-the-secret"))
    with pytest.raises(ClientError) as refused:
        storage.save("x.txt", ContentFile(b"x"))
    assert refused.value.response["Error"]["Code"] in ("SignatureDoesNotMatch", "InvalidAccessKeyId", "AccessDenied")
