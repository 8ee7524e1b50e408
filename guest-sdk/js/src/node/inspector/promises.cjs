// node:inspector/promises: no inspector in the sandbox; functions throw when called.

'use strict';

const { unavailableModule } = require('../internal/unavailable.cjs');

module.exports = unavailableModule('inspector/promises', [
  'close', 'open', 'Session', 'url', 'waitForDebugger',
], { console: globalThis.console });
