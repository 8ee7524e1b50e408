// node:stream/promises: pipeline and finished as promises.

'use strict';

module.exports = require('../stream.cjs').promises;
