// node:events: EventEmitter from the `events` package (Node's own, as browserify ships it),
// with what later Node versions added: `on`, `errorMonitor`, `getEventListeners`,
// `setMaxListeners`, `addAbortListener`. `require('events')` is the class, as in Node.

'use strict';

const EventEmitter = require('../vendor/events.cjs');

const errorMonitor = Symbol('events.errorMonitor');
const captureRejectionSymbol = Symbol.for('nodejs.rejection');

/** The listeners of `name` on an EventEmitter or an EventTarget (none known for the latter). */
function getEventListeners(emitter, name) {
  return typeof emitter.listeners === 'function' ? emitter.listeners(name) : [];
}

/** Sets the listener limit of each emitter given, or the default one. */
function setMaxListeners(n = 10, ...emitters) {
  if (emitters.length === 0) EventEmitter.defaultMaxListeners = n;
  for (const emitter of emitters) {
    if (typeof emitter.setMaxListeners === 'function') emitter.setMaxListeners(n);
  }
}

/** Calls `listener` once when `signal` aborts; the returned disposable removes it. */
function addAbortListener(signal, listener) {
  if (signal.aborted) {
    queueMicrotask(() => listener());
    return { [Symbol.dispose ?? Symbol.for('nodejs.dispose')]() {} };
  }
  signal.addEventListener('abort', listener, { once: true });
  const remove = () => signal.removeEventListener('abort', listener);
  return { [Symbol.dispose ?? Symbol.for('nodejs.dispose')]: remove };
}

/** An async iterator over the argument arrays of `event`; an 'error' event rejects it. */
function on(emitter, event, options = {}) {
  const queued = [];
  const waiting = [];
  let error = null;
  let done = false;
  const push = (...args) => {
    const next = waiting.shift();
    if (next) next.resolve({ value: args, done: false });
    else queued.push(args);
  };
  const fail = (failure) => {
    done = true;
    const next = waiting.shift();
    if (next) next.reject(failure);
    else error = failure;
    stop();
  };
  const stop = () => {
    emitter.removeListener(event, push);
    emitter.removeListener('error', fail);
    for (const next of waiting.splice(0)) next.resolve({ value: undefined, done: true });
  };
  emitter.on(event, push);
  if (event !== 'error') emitter.on('error', fail);
  options.signal?.addEventListener('abort', () => fail(abortError()), { once: true });
  return {
    next() {
      if (queued.length > 0) return Promise.resolve({ value: queued.shift(), done: false });
      if (error) {
        const failure = error;
        error = null;
        return Promise.reject(failure);
      }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return() {
      done = true;
      stop();
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(failure) {
      fail(failure);
      return Promise.reject(failure);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

function abortError() {
  const error = new Error('The operation was aborted');
  error.name = 'AbortError';
  error.code = 'ABORT_ERR';
  return error;
}

Object.assign(EventEmitter, {
  on,
  errorMonitor,
  captureRejectionSymbol,
  captureRejections: false,
  getEventListeners,
  getMaxListeners: (emitter) => emitter.getMaxListeners?.() ?? EventEmitter.defaultMaxListeners,
  setMaxListeners,
  addAbortListener,
  EventEmitterAsyncResource: EventEmitter,
});

module.exports = EventEmitter;
