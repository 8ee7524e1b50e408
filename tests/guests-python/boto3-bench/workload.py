"""The boto3 benchmark's workload, the same code under CPython (scripts/boto3-bench.sh runs
it directly) and under bench (app.py): upload and download one object of ``size`` bytes to
an S3-compatible server; returns the seconds each took."""

import time

import boto3


def client(endpoint):
    """An S3 client of ``endpoint`` with test credentials."""
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )


def transfer(s3, size, key="object"):
    """Puts ``size`` bytes, gets them back and checks them: (upload s, download s)."""
    body = (bytes(range(256)) * (size // 256 + 1))[:size]
    started = time.perf_counter()
    s3.put_object(Bucket="bench", Key=key, Body=body)
    uploaded = time.perf_counter()
    got = s3.get_object(Bucket="bench", Key=key)["Body"].read()
    downloaded = time.perf_counter()
    if got != body:
        raise ValueError(f"downloaded {len(got)} bytes that differ from the {size} uploaded")
    return uploaded - started, downloaded - uploaded
