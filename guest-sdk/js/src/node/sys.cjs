// node:sys (deprecated name): node:util.

'use strict';

module.exports = require('./util.cjs');
