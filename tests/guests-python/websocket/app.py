"""Test task: ``bench_task.websocket`` against the server ``--ws-url`` names. ``--ws-mode
echo`` (the default) sends a text and a binary message, reports the echoes and the close
(the binary echo awaited in ``asyncio.run``); ``leave`` reads one echo and returns with the
connection open (the host closes it); ``receive`` reports the first message (or fails with
the host's error)."""

import asyncio

from bench_task import task
from bench_task.websocket import WebSocket

CONFIG = {
    "benchmarkSlug": "guest-python-websocket",
    "benchmarkName": "Python WebSocket",
    "participants": [{"name": "p", "requiredEnvVars": []}],
    "iterations": 1,
    "customCliFlags": ["--ws-url", "--ws-mode"],
}


def _describe(message):
    if isinstance(message, str):
        return {"text": message}
    return {"binary": list(message)}


@task(CONFIG)
def run(ctx):
    socket = WebSocket(ctx.arg("--ws-url") or "ws://127.0.0.1:9/")
    mode = ctx.arg("--ws-mode") or "echo"
    if mode == "receive":
        return {"message": _describe(socket.recv())}
    if mode == "leave":
        socket.send("left open")
        return {"echo": _describe(socket.recv())}
    socket.send("hello")
    text = _describe(socket.recv())
    socket.send(bytes([0, 1, 2, 255]))
    binary = _describe(asyncio.run(socket.recv_async()))
    code = socket.close(1000, "done")
    return {"text": text, "binary": binary, "closed": {"code": code, "reason": "done"}}
