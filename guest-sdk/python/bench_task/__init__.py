"""Write bench tasks in Python.

A task module (``app.py``) registers one task with its benchmark config::

    from bench_task import task, TaskError

    CONFIG = {"benchmarkSlug": "hello", "benchmarkName": "Hello",
              "participants": [{"name": "local"}], "iterations": 3}

    @task(CONFIG)
    def run(ctx):
        with ctx.step("work"):
            ctx.measure(items=3)
        return {"ok": True}

``bench build`` turns the project into a WebAssembly component with componentize-py.
"""

from .errors import TaskError
from .registry import StepRecord, TaskResult, task
from .context import Context, Step

__all__ = ["Context", "Step", "StepRecord", "TaskError", "TaskResult", "task"]
