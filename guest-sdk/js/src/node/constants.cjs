// node:constants (deprecated in Node): the fs and os constants together.

'use strict';

const { fsConstants, osConstants } = require('./internal/constants.cjs');

module.exports = { ...osConstants.errno, ...osConstants.signals, ...osConstants.priority, ...fsConstants };
