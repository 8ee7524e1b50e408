"""Test task: the Python libraries people use, over the sandbox's HTTP. ``--case`` picks
what one task does against ``--url`` (a local HTTP server, or an S3-compatible one for
``boto3``); failures the sandbox refuses are caught and their messages returned as data."""

import asyncio
import gc
import socket
import subprocess
import time

import boto3
import httpx
import requests
import urllib3
from wit_world.imports import wasi_http_types

from bench_task import task

CONFIG = {
    "benchmarkSlug": "guest-python-libraries",
    "benchmarkName": "Python libraries",
    "participants": [{"name": "p", "requiredEnvVars": []}],
    "iterations": 1,
    "allowedHosts": ["http://127.0.0.1:*"],
    "customCliFlags": ["--case", "--url", "--requests"],
}

# Loads botocore's S3 models while the component is built: clients made when the task runs
# find them (the sandbox has no files).
boto3.client("s3", region_name="us-east-1")

_session = requests.Session()


def _requests(ctx, url):
    with ctx.step("get"):
        got = _session.get(url, timeout=5)
        ctx.measure(status=got.status_code)
    with ctx.step("post"):
        posted = requests.post(url, data=b"x" * 100_000, headers={"content-type": "application/octet-stream"})
    return {"text": got.text, "server": got.headers["x-server"], "echoed": len(posted.content)}


def _urllib3(ctx, url):
    with ctx.step("stream"):
        response = urllib3.PoolManager().request("GET", url, preload_content=False)
        chunks = list(response.stream(2))
        response.release_conn()
    return {"status": response.status, "chunks": len(chunks), "text": b"".join(chunks).decode()}


async def _httpx_async(url):
    async with httpx.AsyncClient(timeout=5) as client:
        first, second = await asyncio.gather(client.get(url), client.post(url, content=b"y" * 5000))
        await asyncio.sleep(0.01)
    return first.text, len(second.content)


def _httpx(ctx, url):
    with ctx.step("sync"):
        with httpx.Client(timeout=5) as client:
            got = client.get(url)
    with ctx.step("async"):
        text, echoed = asyncio.run(_httpx_async(url))
    return {"sync": got.text, "server": got.headers["x-server"], "async": text, "echoed": echoed}


def _s3(url):
    return boto3.client(
        "s3",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )


def _boto3(ctx, url):
    s3 = _s3(url)
    body = bytes(range(256)) * 4096
    with ctx.step("create"):
        s3.create_bucket(Bucket="bench")
    with ctx.step("put"):
        s3.put_object(Bucket="bench", Key="one", Body=body)
    with ctx.step("get"):
        got = s3.get_object(Bucket="bench", Key="one")["Body"].read()
    listed = [item["Key"] for item in s3.list_objects_v2(Bucket="bench")["Contents"]]
    return {"same": got == body, "bytes": len(got), "keys": listed}


def _boto3_downloads(ctx, url):
    """One 4 MiB object put once and got ``--requests`` times, botocore checking each
    download against the CRC32 the server sends: how many came back whole and checked."""
    s3 = _s3(url)
    body = bytes(range(256)) * (16 << 10)
    s3.create_bucket(Bucket="bench")
    s3.put_object(Bucket="bench", Key="big", Body=body)
    gets = int(ctx.arg("--requests"))
    same = checked = 0
    for _ in range(gets):
        response = s3.get_object(Bucket="bench", Key="big")
        same += response["Body"].read() == body
        checked += "x-amz-checksum-crc32" in response["ResponseMetadata"]["HTTPHeaders"]
    return {"gets": gets, "same": same, "checked": checked}


def _caught(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001 (the test records what the task caught)
        return {"caught": type(error).__name__, "message": str(error)}
    return {"caught": None}


def _cpu(ctx, url):
    with ctx.step("spin"):
        deadline = time.monotonic() + 0.3
        spins = 0
        while time.monotonic() < deadline:
            spins += 1
    with ctx.step("sleep"):
        time.sleep(0.3)
    with ctx.step("http"):
        _session.get(url, timeout=5)
    return {"spins": spins}


def _soak(ctx, url):
    """Many requests in one task: the handle a new resource gets and the number of live
    objects the interpreter tracks (garbage collected first, so only what is still reachable
    counts), after the first hundred requests and at the end."""
    count = int(ctx.arg("--requests") or 1000)
    marks = {}
    for index in range(count):
        response = _session.get(url, timeout=5)
        response.content  # noqa: B018 (reads the body)
        if index + 1 in (100, count):
            gc.collect()
            with wasi_http_types.Fields.from_list([]) as probe:
                marks[index + 1] = {"handle": probe.handle, "objects": len(gc.get_objects())}
    return {"requests": count, "early": marks[min(100, count)], "late": marks[count]}


_CASES = {
    "requests": _requests,
    "urllib3": _urllib3,
    "httpx": _httpx,
    "boto3": _boto3,
    "boto3-downloads": _boto3_downloads,
    "cpu": _cpu,
    "soak": _soak,
    "denied": lambda ctx, url: _caught(lambda: requests.get("http://127.0.0.2:9/", timeout=5)),
    "httpx-denied": lambda ctx, url: _caught(lambda: httpx.get("http://127.0.0.2:9/")),
    "socket": lambda ctx, url: _caught(lambda: socket.create_connection(("127.0.0.1", 9), timeout=1)),
    "subprocess": lambda ctx, url: _caught(lambda: subprocess.run(["true"])),
    "file": lambda ctx, url: _caught(lambda: open("/etc/passwd").read()),
}


@task(CONFIG)
def run(ctx):
    return _CASES[ctx.arg("--case")](ctx, ctx.arg("--url"))
