// node:fs: the sandbox has no filesystem for JavaScript tasks. The module imports fine (its
// constants too); every function throws "fs.X is not available in the bench sandbox".

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');
const promises = require('./fs/promises.cjs');
const { fsConstants } = require('./internal/constants.cjs');

const CALLBACK_AND_SYNC = [
  'access', 'appendFile', 'chmod', 'chown', 'close', 'copyFile', 'cp', 'exists', 'fchmod',
  'fchown', 'fdatasync', 'fstat', 'fsync', 'ftruncate', 'futimes', 'glob', 'lchmod', 'lchown',
  'link', 'lstat', 'lutimes', 'mkdir', 'mkdtemp', 'open', 'openAsBlob', 'opendir', 'read',
  'readdir', 'readFile', 'readlink', 'readv', 'realpath', 'rename', 'rm', 'rmdir', 'stat',
  'statfs', 'symlink', 'truncate', 'unlink', 'utimes', 'write', 'writeFile', 'writev',
];
const OTHERS = [
  'createReadStream', 'createWriteStream', 'watch', 'watchFile', 'unwatchFile',
  'Dir', 'Dirent', 'ReadStream', 'Stats', 'WriteStream', 'FileReadStream', 'FileWriteStream',
];

const names = [...CALLBACK_AND_SYNC, ...CALLBACK_AND_SYNC.map((name) => `${name}Sync`), ...OTHERS];
const realpath = unavailableModule('fs', ['realpath', 'realpathSync']);

module.exports = unavailableModule('fs', names, { constants: fsConstants, promises, ...fsConstants });
module.exports.realpath.native = realpath.realpath;
module.exports.realpathSync.native = realpath.realpathSync;
