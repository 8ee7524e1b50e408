// node:util/types: util.types.

'use strict';

module.exports = require('../util.cjs').types;
