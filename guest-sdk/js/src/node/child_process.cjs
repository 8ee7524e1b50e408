// node:child_process: a task cannot start processes; the module imports, and every function
// throws when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('child_process', [
  'ChildProcess', 'exec', 'execFile', 'execFileSync', 'execSync', 'fork', 'spawn', 'spawnSync',
]);
