// node:tls: no raw TLS sockets in the sandbox (HTTPS goes through `fetch` and node:https);
// the module imports, and every function throws when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('tls', [
  'checkServerIdentity', 'connect', 'createSecureContext', 'createSecurePair', 'createServer',
  'getCiphers', 'SecureContext', 'Server', 'TLSSocket',
], {
  DEFAULT_ECDH_CURVE: 'auto', DEFAULT_MIN_VERSION: 'TLSv1.2', DEFAULT_MAX_VERSION: 'TLSv1.3',
  rootCertificates: Object.freeze([]),
});
