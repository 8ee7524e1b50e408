// node:net: the sandbox opens no sockets for JavaScript tasks (HTTP goes through `fetch` and
// node:http); the module imports, and every function throws when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Whether `input` is an IPv4 address in dotted-decimal form. */
function isIPv4(input) {
  return IPV4.test(String(input));
}

/** Whether `input` is an IPv6 address (a zone index allowed), as the URL parser reads one. */
function isIPv6(input) {
  const text = String(input);
  if (!text.includes(':') || /[^0-9a-fA-F:.%]/.test(text.split('%')[0])) return false;
  try {
    new URL(`http://[${text.split('%')[0]}]/`);
    return true;
  } catch {
    return false;
  }
}

/** 4 or 6 for an IP address of that family, else 0. */
function isIP(input) {
  if (isIPv4(input)) return 4;
  return isIPv6(input) ? 6 : 0;
}

module.exports = unavailableModule('net', [
  'BlockList', 'connect', 'createConnection', 'createServer', 'getDefaultAutoSelectFamily',
  'getDefaultAutoSelectFamilyAttemptTimeout', 'Server', 'Socket',
  'SocketAddress', 'Stream', 'setDefaultAutoSelectFamily', 'setDefaultAutoSelectFamilyAttemptTimeout',
], { isIP, isIPv4, isIPv6 });
