// node:dgram: no UDP sockets in the sandbox; every function throws when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('dgram', [
  'createSocket', 'Socket',
]);
