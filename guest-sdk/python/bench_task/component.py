"""The component's exports (the ``WitWorld`` componentize-py wraps): ``config`` and
``run`` call the registered task and turn whatever it raises into a task error."""

import os

import wit_world
from componentize_py_types import Err
from wit_world.imports import model

from . import adapters, natives
from .context import Context
from .errors import TaskError, error_code, error_message
from .registry import TaskResult, registered
from .values import json_object, to_json, to_wit_steps

# Checked when the component is built (app.py is imported then, before this module): an
# app.py that registers no task fails the build with the message of `registered`.
registered()


class WitWorld(wit_world.WitWorld):
    """The bench:task world, implemented by the registered task."""

    def config(self) -> str:
        """The registered benchmark config as JSON text."""
        config, _ = registered()
        return to_json(config)

    def run(self, input: model.TaskInput) -> model.TaskOutput:
        """Runs one iteration; raises ``Err(task-error)`` when the task fails."""
        try:
            adapters.at_run_time()
            _, run = registered()
            ctx = Context(input)
            _install_environment(ctx)
            return _to_output(run(ctx))
        except BaseException as error:  # noqa: BLE001 (every failure becomes a task error)
            raise Err(_to_task_error(error)) from None
        finally:
            natives.forget_crc32()


_environment_installed = False


def _install_environment(ctx):
    """Makes ``os.environ`` the participant's environment, once per instance: a sandbox
    serves one participant (and, as in CPython, ``os.environ`` is the process's own)."""
    global _environment_installed  # noqa: PLW0603 (a per-instance flag)
    if not _environment_installed:
        os.environ.clear()
        os.environ.update(ctx.environment)
        _environment_installed = True


def _to_output(result):
    if isinstance(result, TaskResult):
        data, latency, steps = result.data, result.latency_ms, result.steps
    else:
        data, latency, steps = result, None, []
    return model.TaskOutput(
        data=json_object(data),
        latency_ms=float(latency) if isinstance(latency, (int, float)) and not isinstance(latency, bool) else None,
        steps=to_wit_steps(steps),
    )


def _to_task_error(error):
    if isinstance(error, TaskError):
        return model.TaskError(
            thrown=False,
            code=None if error.code is None else str(error.code),
            message=error.message,
            data=json_object(error.data),
            steps=to_wit_steps(error.steps),
        )
    return model.TaskError(thrown=True, code=error_code(error), message=error_message(error), data=None, steps=[])
