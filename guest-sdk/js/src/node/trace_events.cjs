// node:trace_events: no tracing in the sandbox; functions throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('trace_events', [
  'createTracing', 'getEnabledCategories',
]);
