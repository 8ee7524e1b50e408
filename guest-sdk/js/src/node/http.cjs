// node:http: client requests over the sandbox's `fetch` (request, get, Agent, ClientRequest,
// IncomingMessage, METHODS, STATUS_CODES); servers throw when created: a task serves nothing.

'use strict';

const { Agent, ClientRequest, IncomingMessage, client } = require('./internal/http_client.cjs');
const constants = require('./internal/http_constants.cjs');
const { unavailableModule } = require('./internal/unavailable.cjs');

const globalAgent = new Agent({ keepAlive: true, defaultPort: 80, protocol: 'http:' });

module.exports = unavailableModule('http', ['createServer', 'Server', 'ServerResponse', 'OutgoingMessage'], {
  ...constants,
  ...client({ agent: globalAgent, protocol: 'http:', port: 80 }),
  Agent,
  ClientRequest,
  IncomingMessage,
  globalAgent,
  maxHeaderSize: 16384,
  setMaxIdleHTTPParsers() {},
});
