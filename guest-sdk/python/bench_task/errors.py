"""Task failures and how exceptions become error codes (upstream getErrorCode, in Python)."""

import errno


class TaskError(Exception):
    """A task failure recorded with its ``code`` (the record's errorCode), ``data`` merged
    into the record's data and pre-measured ``steps``; no ``errorMessage`` is added."""

    def __init__(self, message, code=None, data=None, steps=None):
        super().__init__(message)
        self.message = str(message)
        self.code = code
        self.data = data
        self.steps = steps or []


def error_code(error):
    """The code of an exception: a non-empty string ``code`` attribute, else the errno name
    of an OSError (``ECONNREFUSED``, as Node reports), else the exception's class name."""
    code = getattr(error, "code", None)
    if isinstance(code, str) and code:
        return code
    if isinstance(error, OSError) and error.errno in errno.errorcode:
        return errno.errorcode[error.errno]
    return type(error).__name__ or "ERROR"


def step_error_code(error):
    """The code a failed step records: a TaskError's code (``TaskError`` without one), else
    the exception's code."""
    if isinstance(error, TaskError):
        return "TaskError" if error.code is None else str(error.code)
    return error_code(error)


def error_message(error):
    """The message of an exception (its ``str``)."""
    if isinstance(error, TaskError):
        return error.message
    try:
        return str(error)
    except Exception:  # noqa: BLE001 (a broken __str__ must not hide the failure)
        return type(error).__name__
