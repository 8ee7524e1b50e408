// node:worker_threads: a task runs on one thread, the main one: isMainThread is true, there
// is no parent port or worker data, and starting a Worker throws when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule(
  'worker_threads',
  ['Worker', 'markAsUntransferable', 'moveMessagePortToContext', 'receiveMessageOnPort', 'setEnvironmentData', 'getEnvironmentData'],
  {
    isMainThread: true,
    parentPort: null,
    workerData: null,
    threadId: 0,
    resourceLimits: {},
    SHARE_ENV: Symbol.for('nodejs.worker_threads.SHARE_ENV'),
    MessageChannel: globalThis.MessageChannel,
    MessagePort: globalThis.MessagePort,
    BroadcastChannel: globalThis.BroadcastChannel,
  },
);
