// node:path/posix: node:path.

'use strict';

module.exports = require('../path.cjs');
