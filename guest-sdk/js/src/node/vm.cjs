// node:vm: a task cannot compile code at run time in new contexts; functions throw when called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

module.exports = unavailableModule('vm', [
  'compileFunction', 'createContext', 'isContext', 'measureMemory', 'runInContext',
  'runInNewContext', 'runInThisContext', 'Script', 'SourceTextModule', 'SyntheticModule',
]);
