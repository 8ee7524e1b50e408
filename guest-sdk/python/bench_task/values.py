"""Conversions between Python values and the WIT types of the task contract."""

import datetime
import json

from wit_world.imports import model


def to_json(value):
    """JSON text of ``value`` (dates as ISO strings, other unknown objects as strings)."""
    return json.dumps(value, separators=(",", ":"), default=_default)


def json_object(value):
    """JSON text of ``value`` when it is a dict, else None."""
    return to_json(value) if isinstance(value, dict) else None


def to_wit_value(value):
    """A measured value as the WIT ``value`` variant."""
    if isinstance(value, bool):
        return model.Value_Flag(value)
    if isinstance(value, (int, float)):
        return model.Value_Number(float(value))
    if isinstance(value, str):
        return model.Value_Text(value)
    if isinstance(value, (list, tuple)) and all(_is_number(item) for item in value):
        return model.Value_Numbers([float(item) for item in value])
    return model.Value_Json(to_json(value))


def to_wit_measures(values):
    """Measurements as WIT (key, value) pairs."""
    return [(str(key), to_wit_value(value)) for key, value in values.items()]


def to_wit_steps(steps):
    """Pre-measured steps (StepRecord or dicts with upstream keys) as WIT step records."""
    return [_to_wit_step(step) for step in steps or []]


def _to_wit_step(step):
    get = step.get if isinstance(step, dict) else lambda key: getattr(step, _snake(key), None)
    latency = get("latencyMs")
    error_code = get("errorCode")
    return model.StepRecord(
        name=str(get("name") or ""),
        status=model.Status.ERROR if get("status") == "error" else model.Status.SUCCESS,
        started_at=_iso(get("startedAt")),
        completed_at=_iso(get("completedAt")),
        latency_ms=float(latency) if _is_number(latency) else None,
        data=json_object(get("data")),
        error_code=None if error_code is None else str(error_code),
    )


def _snake(key):
    return "".join("_" + c.lower() if c.isupper() else c for c in key)


def _iso(time):
    if isinstance(time, datetime.datetime):
        return time.astimezone(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return time if isinstance(time, str) else None


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _default(value):
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)
