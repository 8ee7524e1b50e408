// node:repl: a task has no terminal; functions throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('repl', [
  'start', 'REPLServer',
]);
