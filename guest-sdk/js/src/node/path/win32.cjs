// node:path/win32: not offered (tasks run on a POSIX view); its functions throw when called.

'use strict';

module.exports = require('../path.cjs').win32;
