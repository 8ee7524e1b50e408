// node:process and the `process` global: an EventEmitter with what packages read of Node's
// process (version, versions, platform, arch, nextTick, hrtime, cwd, memoryUsage…) and
// sandbox values where the real ones do not exist. `process.env` and `process.argv` are the
// task's (the SDK sets them before each task: the participant's secrets and custom flags).

'use strict';

const EventEmitter = require('./events.cjs');
const { notAvailable, unavailableFunction } = require('./internal/unavailable.cjs');

/** The Node version whose APIs these modules follow (what packages test for). */
const NODE_VERSION = '22.12.0';

const process = (globalThis.process ??= {});

function hrtime(previous) {
  const now = performance.now();
  let seconds = Math.floor(now / 1000);
  let nanoseconds = Math.round((now - seconds * 1000) * 1e6);
  if (previous) {
    seconds -= previous[0];
    nanoseconds -= previous[1];
    if (nanoseconds < 0) {
      seconds -= 1;
      nanoseconds += 1e9;
    }
  }
  return [seconds, nanoseconds];
}
hrtime.bigint = () => BigInt(Math.round(performance.now() * 1e6));

/** Runs `callback(...args)` after the current operation, before promise callbacks queued later. */
function nextTick(callback, ...args) {
  if (typeof callback !== 'function') {
    throw new TypeError('The "callback" argument must be of type function');
  }
  queueMicrotask(args.length === 0 ? callback : () => callback(...args));
}

function emitWarning(warning, type, code) {
  const options = typeof type === 'object' && type !== null ? type : { type, code };
  const error = typeof warning === 'string' ? new Error(warning) : warning;
  error.name = options.type || error.name || 'Warning';
  if (options.code) error.code = options.code;
  if (process.listenerCount('warning') > 0) process.emit('warning', error);
  else console.warn(`(bench) ${error.name}: ${error.message}`);
}

/** A write-only stream that goes to the console (a task's console lines reach the host). */
function consoleStream(fd, print) {
  return {
    fd,
    isTTY: false,
    writable: true,
    columns: 80,
    write(chunk, encoding, callback) {
      print(typeof chunk === 'string' ? chunk.replace(/\n$/, '') : new TextDecoder().decode(chunk));
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(done);
      return true;
    },
    end() {},
    on() { return this; },
    once() { return this; },
    off() { return this; },
    removeListener() { return this; },
    emit() { return false; },
  };
}

if (typeof process.on !== 'function') {
  Object.setPrototypeOf(process, EventEmitter.prototype);
  EventEmitter.call(process);
}
// What is there already stays (a process object of the engine's, the task's env and argv).
const members = {
  title: 'bench',
  version: `v${NODE_VERSION}`,
  versions: { node: NODE_VERSION, bench: '0.1.0' },
  release: { name: 'node', lts: 'Jod' },
  platform: 'linux',
  arch: 'wasm32',
  pid: 1,
  ppid: 0,
  execPath: '/bench',
  execArgv: [],
  argv0: 'bench',
  exitCode: undefined,
  features: { inspector: false, ipv6: true, tls: false, typescript: false },
  config: { variables: {} },
  allowedNodeEnvironmentFlags: new Set(),
  noDeprecation: false,
  throwDeprecation: false,
  traceDeprecation: false,
  stdout: consoleStream(1, (line) => console.log(line)),
  stderr: consoleStream(2, (line) => console.error(line)),
  stdin: { fd: 0, isTTY: false, on() { return this; }, once() { return this; } },
  cwd: () => '/',
  chdir: unavailableFunction('process.chdir'),
  umask: () => 0o022,
  uptime: () => performance.now() / 1000,
  hrtime,
  nextTick,
  emitWarning,
  memoryUsage: Object.assign(() => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }), { rss: () => 0 }),
  cpuUsage: () => ({ user: 0, system: 0 }),
  resourceUsage: () => ({}),
  getuid: () => 0,
  geteuid: () => 0,
  getgid: () => 0,
  getegid: () => 0,
  getgroups: () => [],
  kill: unavailableFunction('process.kill'),
  dlopen: unavailableFunction('process.dlopen'),
  binding: unavailableFunction('process.binding'),
  exit(code) {
    throw notAvailable(`process.exit(${code ?? ''})`);
  },
  abort: unavailableFunction('process.abort'),
  env: {},
  argv: ['bench', 'task'],
};
for (const [name, value] of Object.entries(members)) if (!(name in process)) process[name] = value;
// What `Object.prototype.toString` says of Node's process (packages check it to detect Node).
if (!Object.prototype.hasOwnProperty.call(process, Symbol.toStringTag)) {
  Object.defineProperty(process, Symbol.toStringTag, { value: 'process', configurable: true });
}

module.exports = process;
