// node:https: client requests over the sandbox's `fetch`, which does the TLS (the host checks
// certificates; `ca`, `cert`, `rejectUnauthorized` and the other TLS options are ignored);
// servers throw when created.

'use strict';

const http = require('./http.cjs');
const { client } = require('./internal/http_client.cjs');
const { unavailableModule } = require('./internal/unavailable.cjs');

class Agent extends http.Agent {
  constructor(options = {}) {
    super({ defaultPort: 443, protocol: 'https:', ...options });
  }
}

const globalAgent = new Agent({ keepAlive: true });

module.exports = unavailableModule('https', ['createServer', 'Server'], {
  ...client({ agent: globalAgent, protocol: 'https:', port: 443 }),
  Agent,
  globalAgent,
});
