// node:os: what a sandboxed task can say about its machine: a Linux-like view with the
// sandbox's values (one CPU of unknown model, no network interfaces, `/` as home and `/tmp`
// as the temporary folder); nothing here reads the host.

'use strict';

const { osConstants } = require('./internal/constants.cjs');
const { unavailableFunction } = require('./internal/unavailable.cjs');


module.exports = {
  EOL: '\n',
  devNull: '/dev/null',
  constants: osConstants,
  arch: () => 'wasm32',
  machine: () => 'wasm32',
  platform: () => 'linux',
  type: () => 'Linux',
  release: () => '',
  version: () => '',
  hostname: () => 'bench',
  homedir: () => '/',
  tmpdir: () => '/tmp',
  endianness: () => 'LE',
  availableParallelism: () => 1,
  cpus: () => [],
  loadavg: () => [0, 0, 0],
  uptime: () => Math.floor(performance.now() / 1000),
  totalmem: () => 0,
  freemem: () => 0,
  networkInterfaces: () => ({}),
  userInfo: () => ({ uid: 0, gid: 0, username: 'bench', homedir: '/', shell: null }),
  getPriority: () => 0,
  setPriority: unavailableFunction('os.setPriority'),
};
