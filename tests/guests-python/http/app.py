"""Test task: GETs and POSTs ``--url`` with the SDK's wasi:http helper."""

from bench_task import http, task

CONFIG = {
    "benchmarkSlug": "guest-python-http",
    "benchmarkName": "Python HTTP",
    "participants": [{"name": "p", "requiredEnvVars": []}],
    "iterations": 1,
    "allowedHosts": ["http://127.0.0.1:*"],
    "customCliFlags": ["--url"],
}


@task(CONFIG)
def run(ctx):
    url = ctx.arg("--url")
    with ctx.step("get"):
        response = http.get(url, timeout_ms=5000)
        ctx.measure(status=response.status, bytes=len(response.body))
    with ctx.step("post"):
        echoed = http.post(url, body="ping" * 2000, headers={"content-type": "text/plain"})
        ctx.measure(status=echoed.status, echoed=len(echoed.body))
    return {"text": response.text(), "server": response.header("X-Server")}
