// node:_stream_writable (legacy name): stream.Writable.

'use strict';

module.exports = require('./stream.cjs').Writable;
