// node:v8: the sandbox's engine is not V8; functions throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('v8', [
  'cachedDataVersionTag', 'deserialize', 'getHeapCodeStatistics', 'getHeapSnapshot',
  'getHeapSpaceStatistics', 'getHeapStatistics', 'serialize', 'setFlagsFromString',
  'setHeapSnapshotNearHeapLimit', 'stopCoverage', 'takeCoverage', 'writeHeapSnapshot',
  'Deserializer', 'Serializer',
]);
