"""A small task showing every part of the task API: steps, a nested step, measurements,
logs, phases, participant fields, a custom CLI flag and a failing task."""

from bench_task import TaskError, task

CONFIG = {
    "benchmarkSlug": "python-hello",
    "benchmarkName": "Python hello",
    "participants": [
        {"name": "alpha", "requiredEnvVars": [], "region": "eu"},
        {"name": "beta", "requiredEnvVars": [], "region": "us"},
    ],
    "phases": [{"name": "cold", "iterations": 1}, {"name": "warm", "iterations": 2}],
    "customCliFlags": ["--fail-at"],
}


@task(CONFIG)
def run(ctx):
    ctx.log("starting", region=ctx.participant["region"])
    with ctx.step("create"):
        ctx.measure(sandboxes=1)
        sandbox = f"{ctx.participant['name']}-{ctx.task_index}"
    with ctx.step("exec"):
        with ctx.step("connect"):
            ctx.measure(handshakes=1)
        ctx.measure(checksum=sum(range(1, 1001)))
    fail_at = ctx.arg("--fail-at")
    if fail_at is not None and fail_at.isdigit() and int(fail_at) == ctx.task_index:
        raise TaskError("failing as asked by --fail-at", code="planned_failure", data={"sandbox": sandbox})
    ctx.measure(answer=42)
    return {"sandbox": sandbox}
