// node:path: POSIX paths from `path-browserify` (Node's path.posix as a package). The task's
// working directory is `/`. path.win32 is not offered: its functions throw when called.

'use strict';

const posix = require('../vendor/path.cjs');
const { unavailableModule } = require('./internal/unavailable.cjs');

const win32 = unavailableModule('path.win32', [
  'basename', 'dirname', 'extname', 'format', 'isAbsolute', 'join', 'normalize', 'parse',
  'relative', 'resolve', 'toNamespacedPath',
], { sep: '\\', delimiter: ';' });

const path = { ...posix, posix: null, win32 };
path.posix = path;
path.toNamespacedPath ??= (value) => value;
path.matchesGlob ??= unavailableModule('path', ['matchesGlob']).matchesGlob;

module.exports = path;
