"""The boto3 benchmark under bench: ``--size`` bytes up and down per task against
``--url`` (see workload.py and scripts/boto3-bench.sh)."""

import boto3

from bench_task import task
from workload import client, transfer

CONFIG = {
    "benchmarkSlug": "boto3-transfer",
    "benchmarkName": "boto3 upload and download",
    "participants": [{"name": "bench", "requiredEnvVars": []}],
    "iterations": 5,
    "allowedHosts": ["http://127.0.0.1:*"],
    "customCliFlags": ["--url", "--size"],
}

boto3.client("s3", region_name="us-east-1")


@task(CONFIG)
def run(ctx):
    upload_s, download_s = transfer(client(ctx.arg("--url")), int(ctx.arg("--size")))
    return {"uploadMs": upload_s * 1000, "downloadMs": download_s * 1000}
