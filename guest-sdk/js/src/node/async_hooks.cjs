// node:async_hooks: AsyncLocalStorage and AsyncResource for code that only needs a store
// during a synchronous call (run, exit, getStore inside it). The engine has no async context
// tracking, so a store is not carried across `await` or callbacks: getStore() after an
// `await` inside run() is undefined. createHook throws when called; execution ids are 0.

'use strict';

const { unavailableFunction } = require('./internal/unavailable.cjs');

class AsyncLocalStorage {
  constructor() {
    this._store = undefined;
    this._enabled = false;
  }

  getStore() {
    return this._enabled ? this._store : undefined;
  }

  run(store, callback, ...args) {
    const previous = [this._store, this._enabled];
    this._store = store;
    this._enabled = true;
    try {
      return callback(...args);
    } finally {
      [this._store, this._enabled] = previous;
    }
  }

  exit(callback, ...args) {
    const previous = this._enabled;
    this._enabled = false;
    try {
      return callback(...args);
    } finally {
      this._enabled = previous;
    }
  }

  enterWith(store) {
    this._store = store;
    this._enabled = true;
  }

  disable() {
    this._enabled = false;
    this._store = undefined;
  }

  static bind(fn) {
    return fn;
  }

  static snapshot() {
    return (fn, ...args) => fn(...args);
  }
}

class AsyncResource {
  constructor(type) {
    this.type = type;
  }

  runInAsyncScope(fn, thisArg, ...args) {
    return fn.apply(thisArg, args);
  }

  bind(fn) {
    return fn.bind(this);
  }

  emitDestroy() {
    return this;
  }

  asyncId() {
    return 0;
  }

  triggerAsyncId() {
    return 0;
  }

  static bind(fn) {
    return fn;
  }
}

module.exports = {
  AsyncLocalStorage,
  AsyncResource,
  createHook: unavailableFunction('async_hooks.createHook'),
  executionAsyncId: () => 0,
  triggerAsyncId: () => 0,
  executionAsyncResource: () => ({}),
};
