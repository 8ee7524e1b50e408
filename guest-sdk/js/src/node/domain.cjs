// node:domain: (deprecated in Node) not in the sandbox; functions throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('domain', [
  'create', 'createDomain', 'Domain',
], { active: null });
