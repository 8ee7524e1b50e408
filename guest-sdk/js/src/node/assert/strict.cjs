// node:assert/strict: assert.strict.

'use strict';

module.exports = require('../assert.cjs').strict;
