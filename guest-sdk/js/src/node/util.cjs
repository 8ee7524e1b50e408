// node:util: the `util` package (Node's util as browserify ships it: format, inspect,
// inherits, promisify, callbackify, deprecate, debuglog, types…) with what later Node
// versions added: TextEncoder/TextDecoder, isDeepStrictEqual, stripVTControlCharacters,
// toUSVString, aborted, parseEnv, getSystemErrorName.

'use strict';

const vendored = require('../vendor/util.cjs');
const { unavailableFunction } = require('./internal/unavailable.cjs');
const { osConstants } = require('./internal/constants.cjs');

const ANSI = /[\u001B\u009B][[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))/g;

/** Whether `a` and `b` are deeply and strictly equal (as assert.deepStrictEqual checks). */
function isDeepStrictEqual(a, b) {
  try {
    require('./assert.cjs').deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

/** Resolves when `signal` aborts. */
function aborted(signal) {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function getSystemErrorName(errno) {
  const entry = Object.entries(osConstants.errno).find(([, value]) => value === -errno || value === errno);
  return entry ? entry[0] : `Unknown system error ${errno}`;
}

module.exports = {
  ...vendored,
  TextEncoder: globalThis.TextEncoder,
  TextDecoder: globalThis.TextDecoder,
  isDeepStrictEqual,
  stripVTControlCharacters: (text) => String(text).replace(ANSI, ''),
  toUSVString: (text) => String(text).toWellFormed?.() ?? String(text),
  aborted,
  getSystemErrorName,
  getSystemErrorMap: () => new Map(Object.entries(osConstants.errno).map(([name, errno]) => [-errno, [name, name]])),
  styleText: (_format, text) => String(text),
  parseArgs: unavailableFunction('util.parseArgs'),
  MIMEType: unavailableFunction('util.MIMEType'),
  transferableAbortController: () => new AbortController(),
  transferableAbortSignal: (signal) => signal,
};
module.exports.types = { ...vendored.types };
