// node:wasi: a task is already a WASI component and cannot start another; functions
// throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('wasi', [
  'WASI',
]);
