"""An asyncio event loop over wasi:io/poll, the default for ``asyncio.run`` in a task: the
sandbox has no sockets, so the selector loop (which needs a self-pipe) cannot start. Timers
(``asyncio.sleep``, timeouts) wait on the host's monotonic clock and the wasi:http
transports wait on their pollables, so a waiting task spends no CPU.

``drive`` runs one of ``bench_task.transport``'s waiting generators inside a coroutine.
"""

import asyncio
import asyncio.base_events
import asyncio.events

from wit_world.imports import poll

from .. import transport


class _PollSelector:
    """Stands in for the selector of ``BaseEventLoop._run_once``: ``select`` waits until a
    registered pollable is ready or the timeout passes and returns the futures to wake."""

    def __init__(self):
        self._waiting = []

    def register(self, pollables, future):
        self._waiting.append((pollables, future))

    def unregister(self, future):
        self._waiting = [(pollables, waiter) for pollables, waiter in self._waiting if waiter is not future]

    def select(self, timeout):
        if not self._waiting:
            if timeout is None:
                raise RuntimeError("bench: the event loop has nothing to wait for: every task awaits another")
            if timeout > 0:
                with transport.timer(timeout) as expiry:
                    expiry.block()
            return []
        pollables = [pollable for group, _ in self._waiting for pollable in group]
        if timeout is None:
            ready = set(poll.poll(pollables))
        elif timeout <= 0:
            ready = {index for index, pollable in enumerate(pollables) if pollable.ready()}
        else:
            with transport.timer(timeout) as expiry:
                ready = set(poll.poll([*pollables, expiry]))
        woken, waiting, index = [], [], 0
        for group, future in self._waiting:
            if any(index + offset in ready for offset in range(len(group))):
                woken.append(future)
            else:
                waiting.append((group, future))
            index += len(group)
        self._waiting = waiting
        return woken

    def close(self):
        self._waiting = []


class PollLoop(asyncio.base_events.BaseEventLoop):
    """asyncio's base loop (call_soon, call_later, tasks, futures) waiting on wasi:io/poll."""

    def __init__(self):
        super().__init__()
        self._selector = _PollSelector()

    def _process_events(self, event_list):
        for future in event_list:
            if not future.done():
                future.set_result(None)

    def _write_to_self(self):
        """Nothing to wake: the sandbox runs one thread."""

    def close(self):
        self._selector.close()
        super().close()

    async def ready(self, pollables):
        """Waits until one of ``pollables`` is ready (they stay their owner's)."""
        future = self.create_future()
        self._selector.register(pollables, future)
        try:
            await future
        finally:
            self._selector.unregister(future)


async def drive(steps):
    """Runs a ``bench_task.transport`` waiting generator in the running loop; returns what
    it returns. A cancelled wait closes the generator, dropping what it holds."""
    loop = asyncio.get_running_loop()
    try:
        pollables = next(steps)
        while True:
            await loop.ready(pollables)
            pollables = steps.send(None)
    except StopIteration as done:
        return done.value
    except BaseException:
        steps.close()
        raise


# Python 3.14 deprecates the policy API for applications and keeps it under these names.
_BasePolicy = getattr(asyncio.events, "_BaseDefaultEventLoopPolicy", None) or asyncio.events.BaseDefaultEventLoopPolicy
_set_policy = getattr(asyncio.events, "_set_event_loop_policy", None) or asyncio.set_event_loop_policy


class PollLoopPolicy(_BasePolicy):
    """Makes every new event loop a ``PollLoop``."""

    _loop_factory = PollLoop


def install():
    """Makes ``PollLoop`` the loop ``asyncio.run`` and ``asyncio.new_event_loop`` create."""
    _set_policy(PollLoopPolicy())
