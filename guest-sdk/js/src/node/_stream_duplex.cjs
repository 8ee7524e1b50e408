// node:_stream_duplex (legacy name): stream.Duplex.

'use strict';

module.exports = require('./stream.cjs').Duplex;
