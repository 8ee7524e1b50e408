// node:assert: the `assert` package (Node's assert as browserify ships it: ok, equal,
// deepStrictEqual, throws, rejects, match, AssertionError, strict…).

'use strict';

module.exports = require('../vendor/assert.cjs');
