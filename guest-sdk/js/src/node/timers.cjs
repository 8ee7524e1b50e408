// node:timers: Node's timer functions over the engine's. They return Timeout and Immediate
// objects (with ref/unref/hasRef/refresh, and a number value for clearTimeout); the globals
// setTimeout/setInterval stay the engine's, setImmediate/clearImmediate are these.

'use strict';

const promises = require('./timers/promises.cjs');

/** What Timeout and Immediate share: a task's timers always keep it running until they fire. */
class TimerHandle {
  ref() {
    return this;
  }

  unref() {
    return this;
  }

  hasRef() {
    return true;
  }
}

class Timeout extends TimerHandle {
  constructor(callback, delay, args, repeat) {
    super();
    this._callback = callback;
    this._delay = delay;
    this._args = args;
    this._repeat = repeat;
    this._id = this._start();
  }

  _start() {
    const schedule = this._repeat ? globalThis.setInterval : globalThis.setTimeout;
    return schedule(() => this._callback(...this._args), this._delay);
  }

  _stop() {
    (this._repeat ? globalThis.clearInterval : globalThis.clearTimeout)(this._id);
  }

  /** Starts the timer again from now. */
  refresh() {
    this._stop();
    this._id = this._start();
    return this;
  }

  close() {
    this._stop();
    return this;
  }

  [Symbol.toPrimitive]() {
    return this._id;
  }
}

class Immediate extends TimerHandle {
  constructor(callback, args) {
    super();
    this._id = globalThis.setTimeout(() => callback(...args), 0);
  }
}

const delayOf = (delay) => (Number.isFinite(+delay) && +delay > 0 ? +delay : 1);

function setTimeout(callback, delay, ...args) {
  return new Timeout(callback, delayOf(delay), args, false);
}

function setInterval(callback, delay, ...args) {
  return new Timeout(callback, delayOf(delay), args, true);
}

function clearTimeout(timer) {
  if (timer instanceof Timeout) timer.close();
  else if (timer != null) globalThis.clearTimeout(timer);
}

function setImmediate(callback, ...args) {
  return new Immediate(callback, args);
}

function clearImmediate(immediate) {
  if (immediate instanceof Immediate) globalThis.clearTimeout(immediate._id);
}

module.exports = {
  setTimeout,
  setInterval,
  setImmediate,
  clearTimeout,
  clearInterval: clearTimeout,
  clearImmediate,
  promises,
};
