// node:_stream_readable (legacy name): stream.Readable.

'use strict';

module.exports = require('./stream.cjs').Readable;
