"""{{title}}: one iteration of the workload in ``run``, the benchmark in ``CONFIG``."""

from bench_task import task

CONFIG = {
    "benchmarkSlug": "{{slug}}",
    "benchmarkName": "{{title}}",
    "participants": [{"name": "local", "requiredEnvVars": []}],
    "iterations": 3,
}


@task(CONFIG)
def run(ctx):
    items = ctx.step("prepare", lambda: list(range(1, 101)))
    with ctx.step("work"):
        ctx.measure(items=len(items), sum=sum(items))
    ctx.log("done")
    return {"participant": ctx.participant["name"]}
