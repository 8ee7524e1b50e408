// node:tty: a task has no terminal: isatty() is false (what color and progress libraries
// check), and the terminal streams throw when created.

'use strict';

const { unavailableFunction } = require('./internal/unavailable.cjs');

module.exports = {
  isatty: () => false,
  ReadStream: unavailableFunction('tty.ReadStream'),
  WriteStream: unavailableFunction('tty.WriteStream'),
};
