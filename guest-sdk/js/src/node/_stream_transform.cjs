// node:_stream_transform (legacy name): stream.Transform.

'use strict';

module.exports = require('./stream.cjs').Transform;
