"""Test task: ``--raise <kind>`` makes it fail in one particular way; without it, it
checks the environment, log levels and returned steps."""

import errno
import os

from bench_task import StepRecord, TaskError, TaskResult, task

CONFIG = {
    "benchmarkSlug": "guest-python-errors",
    "benchmarkName": "Python errors",
    "participants": [{"name": "p", "requiredEnvVars": ["GUEST_SECRET"]}],
    "iterations": 1,
    "customCliFlags": ["--raise"],
}


class ProviderError(Exception):
    """An SDK-style exception carrying a string code."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def _raise(kind):
    if kind == "plain":
        raise Exception("plain failure")
    if kind == "value-error":
        raise ValueError("bad value")
    if kind == "code":
        raise ProviderError("quota hit", "rate_limited")
    if kind == "oserror":
        raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
    if kind == "task-error":
        raise TaskError(
            "quota exceeded",
            code="quota_exceeded",
            data={"remaining": 0, "region": "eu"},
            steps=[StepRecord("remote", status="error", latency_ms=5, error_code="remote_failed")],
        )
    if kind == "task-error-no-code":
        raise TaskError("no code")
    if kind == "exit":
        raise SystemExit(3)


@task(CONFIG)
def run(ctx):
    kind = ctx.arg("--raise")
    if kind == "in-step":
        with ctx.step("outer"):
            with ctx.step("inner"):
                _raise("task-error")
    if kind:
        _raise(kind)
    ctx.measure(secret=ctx.env("GUEST_SECRET"), via_os=os.environ.get("GUEST_SECRET"), path=os.environ.get("PATH"))
    ctx.log("careful", level="warn", attempt=1)
    answer = ctx.step("compute", lambda: 6 * 7)
    with ctx.step("command") as step:
        step.output(stdout="line one\nline two", exit_code=0)
    return TaskResult(
        data={"answer": answer, "count": 1},
        steps=[{"name": "remote", "status": "success", "latencyMs": 12}],
    )
