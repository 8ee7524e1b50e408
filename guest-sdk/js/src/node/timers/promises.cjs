// node:timers/promises: timers as promises (setTimeout, setImmediate, setInterval as an async
// iterator, scheduler.wait/yield), cancelled by an AbortSignal.

'use strict';

function abortError(signal) {
  const error = new Error('The operation was aborted', { cause: signal?.reason });
  error.name = 'AbortError';
  error.code = 'ABORT_ERR';
  return error;
}

function delayed(delay, value, options = {}) {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      globalThis.clearTimeout(id);
      reject(abortError(signal));
    };
    const id = globalThis.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    }, delay);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function setTimeout(delay = 1, value, options) {
  return delayed(Number(delay) || 0, value, options);
}

function setImmediate(value, options) {
  return delayed(0, value, options);
}

async function* setInterval(delay = 1, value, options = {}) {
  while (true) {
    yield await delayed(Number(delay) || 0, value, options);
  }
}

const scheduler = {
  wait: (delay, options) => delayed(Number(delay) || 0, undefined, options),
  yield: () => delayed(0, undefined),
};

module.exports = { setTimeout, setImmediate, setInterval, scheduler };
