"""The task context: participant, task index, phase, steps, measurements, logs, the
participant's environment and the custom CLI flags."""

import json

from wit_world.imports import context as host
from wit_world.imports import environment, model

from .errors import error_message, step_error_code
from .values import to_json, to_wit_measures

_LEVELS = {
    "debug": model.Level.DEBUG,
    "info": model.Level.INFO,
    "warn": model.Level.WARN,
    "error": model.Level.ERROR,
}
_U32_MAX = 4294967295


class Step:
    """A named, timed step: use it as ``with ctx.step("name"):``. An exception leaving the
    block fails the step (and propagates); ``output`` sets an outcome for the log."""

    def __init__(self, name, timeout_ms=None, capture_output=None):
        if timeout_ms is not None and not (isinstance(timeout_ms, (int, float)) and timeout_ms >= 0):
            raise ValueError(f'step "{name}" timeout_ms must be a number >= 0 (got {timeout_ms})')
        self.name = str(name)
        self._options = model.StepOptions(
            timeout_ms=None if timeout_ms is None else min(_U32_MAX, int(-(-timeout_ms // 1))),
            concurrency=None,
            capture_output=capture_output,
        )
        self._outcome = None
        self._id = None

    def output(self, stdout=None, stderr=None, error=None, exit_code=None):
        """Sets what a command-like step produced; written to the participant log."""
        self._outcome = model.StepOutcome(stdout=stdout, stderr=stderr, error=error, exit_code=exit_code)

    def __enter__(self):
        self._id = host.step_start(self.name, self._options)
        return self

    def __exit__(self, exc_type, exc, traceback):
        if exc is None:
            host.step_end(self._id, self._outcome)
        else:
            host.step_fail(self._id, step_error_code(exc), error_message(exc))
        return False


_environment = None


def _participant_environment():
    """The participant's environment, read from the host once per instance: a sandbox serves
    one participant, whose environment does not change between its tasks."""
    global _environment  # noqa: PLW0603 (a per-instance cache)
    if _environment is None:
        _environment = dict(environment.get_environment())
    return _environment


class Context:
    """What the host passed to this task run, and the way to report steps, measurements
    and logs."""

    def __init__(self, task_input):
        self._participant_json = task_input.participant
        self._participant = None
        self.task_index = task_input.task_index
        self.phase = task_input.phase
        self.args = list(task_input.args)
        self._environment = None

    @property
    def participant(self):
        """The participant object from the config, custom fields included (parsed when the
        task first reads it)."""
        if self._participant is None:
            try:
                self._participant = json.loads(self._participant_json)
            except ValueError:
                self._participant = {}
        return self._participant

    @participant.setter
    def participant(self, value):
        self._participant = value

    @property
    def environment(self):
        """The participant's environment (its declared secrets) as a dict (a copy, made when
        the task first reads it)."""
        if self._environment is None:
            self._environment = dict(_participant_environment())
        return self._environment

    @environment.setter
    def environment(self, value):
        self._environment = value

    def env(self, name, default=None):
        """An environment variable of this participant (its declared secrets)."""
        environment = self._environment if self._environment is not None else _participant_environment()
        return environment.get(name, default)

    def arg(self, flag):
        """The value of a custom CLI flag declared in ``customCliFlags`` ('' when given
        without a value), or None."""
        return next((value for name, value in self.args if name == flag), None)

    def step(self, name, fn=None, *, timeout_ms=None, capture_output=None):
        """A named, timed step: ``with ctx.step("name"):``, or ``ctx.step("name", fn)`` to run
        ``fn`` as the step and return its value."""
        step = Step(name, timeout_ms=timeout_ms, capture_output=capture_output)
        if fn is None:
            return step
        with step:
            return fn()

    def measure(self, values=None, /, **more):
        """Merges measurements into the active step, or into the task when no step is
        active: ``ctx.measure(bytes=1024)`` or ``ctx.measure({"bytes": 1024})``."""
        merged = dict(values or {})
        merged.update(more)
        host.measure(to_wit_measures(merged))

    def log(self, message, level="info", **meta):
        """Appends a line to the participant log at ``level`` (debug, info, warn, error),
        with keyword arguments as its metadata."""
        if level not in _LEVELS:
            raise ValueError(f"log level must be one of {', '.join(_LEVELS)} (got {level!r})")
        host.log(_LEVELS[level], str(message), to_json(meta) if meta else None)
