// node:fs/promises: no filesystem in the sandbox; every function rejects with
// "fs.promises.X is not available in the bench sandbox".

'use strict';

const { unavailableAsyncModule } = require('../internal/unavailable.cjs');
const { fsConstants } = require('../internal/constants.cjs');

module.exports = unavailableAsyncModule(
  'fs.promises',
  [
    'access', 'appendFile', 'chmod', 'chown', 'copyFile', 'cp', 'glob', 'lchmod', 'lchown',
    'link', 'lstat', 'lutimes', 'mkdir', 'mkdtemp', 'open', 'opendir', 'readdir', 'readFile',
    'readlink', 'realpath', 'rename', 'rm', 'rmdir', 'stat', 'statfs', 'symlink', 'truncate',
    'unlink', 'utimes', 'watch', 'writeFile',
  ],
  { constants: fsConstants },
);
