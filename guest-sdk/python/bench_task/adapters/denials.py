"""What the sandbox does not give a task, refused with bench's reason: a socket, a process,
a file outside the directories granted with ``--allow-dir``. Each raises ``PermissionError``
(an ``OSError``, errno ``EACCES`` or ``EPERM``) that the task can catch; none of them reaches
the host, where an unsupported call could end the whole task.

One audit hook (``sys.addaudithook``) sees the socket and file calls; ``subprocess.Popen``
is refused before Python's own "does not support processes" error.
"""

import errno
import os
import sys

from wit_world.imports import preopens

SOCKETS = (
    "bench: the sandbox has no sockets: a task reaches the network only through HTTP "
    "(requests, urllib3, httpx, boto3 or bench_task.http, over wasi:http), to the hosts "
    "the benchmark config's allowedHosts or --allow-host allow"
)
PROCESSES = "bench: a task cannot start processes: the sandbox has none"

_SOCKET_EVENTS = frozenset(
    {
        "socket.__new__",
        "socket.bind",
        "socket.connect",
        "socket.getaddrinfo",
        "socket.gethostbyaddr",
        "socket.gethostbyname",
        "socket.getnameinfo",
        "socket.sendmsg",
        "socket.sendto",
    }
)
_PROCESS_EVENTS = frozenset(
    {"subprocess.Popen", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty", "pty.spawn"}
)
_PATH_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "os.mkdir", "os.remove", "os.rename", "os.rmdir"})

# The guest paths of the granted directories, read once the task runs (the build, which
# imports the modules, has its own).
_granted = None


def files_outside(path):
    """The reason ``path`` cannot be opened, or None when it is inside a granted directory
    (or is no path: a file descriptor)."""
    if _granted is None or isinstance(path, int):
        return None
    try:
        name = os.fsdecode(os.fspath(path))
    except TypeError:
        return None
    full = os.path.normpath(os.path.join("/", name))
    if any(full == root or full.startswith(root.rstrip("/") + "/") for root in _granted):
        return None
    if _granted:
        granted = ", ".join(_granted)
        return f"bench: {name} is outside the directories granted to the task ({granted}; grant more with --allow-dir)"
    return f"bench: {name} is outside the sandbox: no directory is granted to the task (grant one with --allow-dir HOST[:GUEST][:rw])"


def _audit(event, args):
    if event in _SOCKET_EVENTS:
        raise PermissionError(errno.EACCES, SOCKETS)
    if event in _PROCESS_EVENTS:
        raise PermissionError(errno.EPERM, PROCESSES)
    if event in _PATH_EVENTS and args:
        reason = files_outside(args[0])
        if reason is not None:
            raise PermissionError(errno.EACCES, reason, os.fsdecode(args[0]) if isinstance(args[0], (str, bytes)) else None)


def _refuse_processes(*args, **kwargs):
    raise PermissionError(errno.EPERM, PROCESSES)


def install():
    """Adds the audit hook and refuses ``subprocess.Popen`` (at build time, before the task
    module is imported)."""
    sys.addaudithook(_audit)
    import subprocess

    subprocess.Popen.__init__ = _refuse_processes
    if hasattr(os, "system"):
        os.system = _refuse_processes


def start_checking_files():
    """Reads the granted directories (once, when the first task runs) and from then on
    refuses paths outside them."""
    global _granted  # noqa: PLW0603 (read once per instance)
    if _granted is not None:
        return
    granted = []
    for descriptor, path in preopens.get_directories():
        descriptor.__exit__(None, None, None)
        granted.append(os.path.normpath(os.path.join("/", path)))
    _granted = tuple(granted)
