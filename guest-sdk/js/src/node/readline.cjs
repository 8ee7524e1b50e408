// node:readline: a task has no terminal; functions throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('readline', [
  'clearLine', 'clearScreenDown', 'createInterface', 'cursorTo', 'emitKeypressEvents',
  'Interface', 'moveCursor',
]);
