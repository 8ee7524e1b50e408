// node:_stream_passthrough (legacy name): stream.PassThrough.

'use strict';

module.exports = require('./stream.cjs').PassThrough;
