// node:dns: a task resolves no names itself (the host does, for `fetch`); the module imports
// (its constants too), and every function throws when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');
const promises = require('./dns/promises.cjs');

const FUNCTIONS = [
  'getDefaultResultOrder', 'getServers', 'lookup', 'lookupService', 'resolve', 'resolve4',
  'resolve6', 'resolveAny', 'resolveCaa', 'resolveCname', 'resolveMx', 'resolveNaptr',
  'resolveNs', 'resolvePtr', 'resolveSoa', 'resolveSrv', 'resolveTxt', 'reverse',
  'setDefaultResultOrder', 'setServers', 'Resolver',
];

module.exports = unavailableModule('dns', FUNCTIONS, {
  promises, ADDRCONFIG: 1024, ALL: 256, V4MAPPED: 2048,
  NODATA: 'ENODATA', FORMERR: 'EFORMERR', SERVFAIL: 'ESERVFAIL', NOTFOUND: 'ENOTFOUND',
  NOTIMP: 'ENOTIMP', REFUSED: 'EREFUSED', BADQUERY: 'EBADQUERY', BADNAME: 'EBADNAME',
  BADFAMILY: 'EBADFAMILY', BADRESP: 'EBADRESP', CONNREFUSED: 'ECONNREFUSED',
  TIMEOUT: 'ETIMEOUT', EOF: 'EOF', FILE: 'EFILE', NOMEM: 'ENOMEM', DESTRUCTION: 'EDESTRUCTION',
  BADSTR: 'EBADSTR', BADFLAGS: 'EBADFLAGS', NONAME: 'ENONAME', BADHINTS: 'EBADHINTS',
  NOTINITIALIZED: 'ENOTINITIALIZED', LOADIPHLPAPI: 'ELOADIPHLPAPI',
  ADDRGETNETWORKPARAMS: 'EADDRGETNETWORKPARAMS', CANCELLED: 'ECANCELLED',
});
