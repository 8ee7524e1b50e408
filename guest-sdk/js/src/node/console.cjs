// node:console: the global console (a task's console lines reach the host).

'use strict';

module.exports = globalThis.console;
