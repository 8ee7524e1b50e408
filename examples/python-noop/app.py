"""An empty task: what a Python task costs per iteration beyond its own work. With
``--step`` it runs one step that records one measurement instead."""

from bench_task import task

CONFIG = {
    "benchmarkSlug": "python-noop",
    "benchmarkName": "Python no-op",
    "participants": [{"name": "local", "requiredEnvVars": []}],
    "iterations": 1000,
    "customCliFlags": ["--step"],
}


@task(CONFIG)
def run(ctx):
    if ctx.arg("--step") is not None:
        with ctx.step("work"):
            ctx.measure(value=1)
