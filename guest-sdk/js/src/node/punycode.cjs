// node:punycode (deprecated in Node): the `punycode` package, Node's own.

'use strict';

module.exports = require('../vendor/punycode.cjs');
