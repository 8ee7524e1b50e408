"""The registered task and what it may return."""

from dataclasses import dataclass, field

_registered = {}


@dataclass
class StepRecord:
    """A step the task measured itself (e.g. from timings a remote service reported)."""

    name: str
    status: str = "success"
    started_at: str | None = None
    completed_at: str | None = None
    latency_ms: float | None = None
    data: dict | None = None
    error_code: str | None = None


@dataclass
class TaskResult:
    """A task's result: data merged into the record, an optional latency override (ms) and
    pre-measured steps. A task may also return a plain dict (the data) or None."""

    data: dict | None = None
    latency_ms: float | None = None
    steps: list = field(default_factory=list)


def task(config):
    """Registers the decorated function as the module's task, with its benchmark config (a
    dict with upstream ``defineBenchmarkConfig`` fields; the host validates it)."""

    def register(run):
        _registered["config"] = config
        _registered["run"] = run
        return run

    return register


def registered():
    """The registered (config, run) pair."""
    if "run" not in _registered:
        raise RuntimeError("app.py registers no task: decorate its task function with @task(CONFIG)")
    return _registered["config"], _registered["run"]
