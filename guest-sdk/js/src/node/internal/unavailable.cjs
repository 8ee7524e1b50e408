// What the sandbox cannot offer (files, sockets, processes, DNS…): a module of such functions
// imports fine, so a package that imports it but never calls it works; a call throws (or,
// for a promise API, rejects) with an Error naming the function and ERR_METHOD_NOT_IMPLEMENTED.

'use strict';

/** The error a call of `what` (e.g. `fs.readFile`) fails with. */
function notAvailable(what) {
  const error = new Error(`${what} is not available in the bench sandbox`);
  error.code = 'ERR_METHOD_NOT_IMPLEMENTED';
  return error;
}

/** A function (also usable as a class to extend) that throws when called or constructed. */
function unavailableFunction(what) {
  return function unavailable() {
    throw notAvailable(what);
  };
}

/** A promise-returning function that rejects when called. */
function unavailableAsync(what) {
  return function unavailable() {
    return Promise.reject(notAvailable(what));
  };
}

/** An object with an unavailable function for each name (`module.name`), plus `extra`. */
function unavailableModule(module, names, extra = {}) {
  const exports = {};
  for (const name of names) exports[name] = unavailableFunction(`${module}.${name}`);
  return Object.assign(exports, extra);
}

/** Like unavailableModule, for a promise API (each function rejects). */
function unavailableAsyncModule(module, names, extra = {}) {
  const exports = {};
  for (const name of names) exports[name] = unavailableAsync(`${module}.${name}`);
  return Object.assign(exports, extra);
}

module.exports = { notAvailable, unavailableFunction, unavailableModule, unavailableAsyncModule };
