// node:cluster: a task is one sandbox, not a cluster of processes; functions throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('cluster', [
  'disconnect', 'fork', 'setupMaster', 'setupPrimary', 'Worker',
], {
  isMaster: true, isPrimary: true, isWorker: false, workers: {}, settings: {},
  on() { return module.exports; }, once() { return module.exports; },
});
