// node:perf_hooks: the engine's `performance` (now, timeOrigin, mark, measure where it has
// them); observers and event-loop monitors throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule(
  'perf_hooks',
  ['PerformanceObserver', 'monitorEventLoopDelay', 'createHistogram', 'PerformanceEntry', 'PerformanceMark', 'PerformanceMeasure'],
  { performance: globalThis.performance, constants: {} },
);
