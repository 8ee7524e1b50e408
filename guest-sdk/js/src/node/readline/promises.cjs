// node:readline/promises: a task has no terminal; functions throw when called.

'use strict';

const { unavailableModule } = require('../internal/unavailable.cjs');

module.exports = unavailableModule('readline/promises', [
  'createInterface', 'Interface', 'Readline',
]);
