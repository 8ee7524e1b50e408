// node:http2: no HTTP/2 sessions of its own in the sandbox (`fetch` chooses the protocol);
// functions throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('http2', [
  'connect', 'createSecureServer', 'createServer', 'getDefaultSettings', 'getPackedSettings',
  'getUnpackedSettings', 'Http2ServerRequest', 'Http2ServerResponse',
], { constants: {}, sensitiveHeaders: Symbol('nodejs.http2.sensitiveHeaders') });
