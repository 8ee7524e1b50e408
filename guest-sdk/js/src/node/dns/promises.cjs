// node:dns/promises: a task resolves no names itself; every function rejects when called.

'use strict';

const { unavailableAsyncModule, unavailableFunction } = require('../internal/unavailable.cjs');

module.exports = unavailableAsyncModule(
  'dns.promises',
  [
    'lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCaa',
    'resolveCname', 'resolveMx', 'resolveNaptr', 'resolveNs', 'resolvePtr', 'resolveSoa',
    'resolveSrv', 'resolveTxt', 'reverse',
  ],
  {
    getDefaultResultOrder: unavailableFunction('dns.promises.getDefaultResultOrder'),
    getServers: unavailableFunction('dns.promises.getServers'),
    setDefaultResultOrder: unavailableFunction('dns.promises.setDefaultResultOrder'),
    setServers: unavailableFunction('dns.promises.setServers'),
    Resolver: unavailableFunction('dns.promises.Resolver'),
  },
);
