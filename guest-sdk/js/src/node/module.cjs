// node:module: a task is one bundle, so the only modules there are to load at run time are
// the built-in ones: createRequire(url) gives a `require` of those (what ES modules that
// synthesize `require` from `import.meta.url` use); anything else throws when required.
// builtinModules and isBuiltin answer; the loader hooks throw when called.

'use strict';

const { notAvailable, unavailableModule } = require('./internal/unavailable.cjs');

/** The built-in module `name` (without `node:`), or undefined. */
function builtin(name) {
  switch (name) {
    case '_stream_duplex': return require('./_stream_duplex.cjs');
    case '_stream_passthrough': return require('./_stream_passthrough.cjs');
    case '_stream_readable': return require('./_stream_readable.cjs');
    case '_stream_transform': return require('./_stream_transform.cjs');
    case '_stream_writable': return require('./_stream_writable.cjs');
    case 'assert': return require('./assert.cjs');
    case 'assert/strict': return require('./assert/strict.cjs');
    case 'async_hooks': return require('./async_hooks.cjs');
    case 'buffer': return require('./buffer.cjs');
    case 'child_process': return require('./child_process.cjs');
    case 'cluster': return require('./cluster.cjs');
    case 'console': return require('./console.cjs');
    case 'constants': return require('./constants.cjs');
    case 'crypto': return require('./crypto.cjs');
    case 'dgram': return require('./dgram.cjs');
    case 'diagnostics_channel': return require('./diagnostics_channel.cjs');
    case 'dns': return require('./dns.cjs');
    case 'dns/promises': return require('./dns/promises.cjs');
    case 'domain': return require('./domain.cjs');
    case 'events': return require('./events.cjs');
    case 'fs': return require('./fs.cjs');
    case 'fs/promises': return require('./fs/promises.cjs');
    case 'http': return require('./http.cjs');
    case 'http2': return require('./http2.cjs');
    case 'https': return require('./https.cjs');
    case 'inspector': return require('./inspector.cjs');
    case 'inspector/promises': return require('./inspector/promises.cjs');
    case 'net': return require('./net.cjs');
    case 'os': return require('./os.cjs');
    case 'path': return require('./path.cjs');
    case 'path/posix': return require('./path/posix.cjs');
    case 'path/win32': return require('./path/win32.cjs');
    case 'perf_hooks': return require('./perf_hooks.cjs');
    case 'process': return require('./process.cjs');
    case 'punycode': return require('./punycode.cjs');
    case 'querystring': return require('./querystring.cjs');
    case 'readline': return require('./readline.cjs');
    case 'readline/promises': return require('./readline/promises.cjs');
    case 'repl': return require('./repl.cjs');
    case 'stream': return require('./stream.cjs');
    case 'stream/consumers': return require('./stream/consumers.cjs');
    case 'stream/promises': return require('./stream/promises.cjs');
    case 'stream/web': return require('./stream/web.cjs');
    case 'string_decoder': return require('./string_decoder.cjs');
    case 'sys': return require('./sys.cjs');
    case 'timers': return require('./timers.cjs');
    case 'timers/promises': return require('./timers/promises.cjs');
    case 'tls': return require('./tls.cjs');
    case 'trace_events': return require('./trace_events.cjs');
    case 'tty': return require('./tty.cjs');
    case 'url': return require('./url.cjs');
    case 'util': return require('./util.cjs');
    case 'util/types': return require('./util/types.cjs');
    case 'v8': return require('./v8.cjs');
    case 'vm': return require('./vm.cjs');
    case 'wasi': return require('./wasi.cjs');
    case 'worker_threads': return require('./worker_threads.cjs');
    case 'zlib': return require('./zlib.cjs');
    case 'module': return module.exports;
    default: return undefined;
  }
}

const builtinModules = [
  'assert',
  'assert/strict',
  'async_hooks',
  'buffer',
  'child_process',
  'cluster',
  'console',
  'constants',
  'crypto',
  'dgram',
  'diagnostics_channel',
  'dns',
  'dns/promises',
  'domain',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'inspector',
  'inspector/promises',
  'module',
  'net',
  'os',
  'path',
  'path/posix',
  'path/win32',
  'perf_hooks',
  'process',
  'punycode',
  'querystring',
  'readline',
  'readline/promises',
  'repl',
  'stream',
  'stream/consumers',
  'stream/promises',
  'stream/web',
  'string_decoder',
  'sys',
  'timers',
  'timers/promises',
  'tls',
  'trace_events',
  'tty',
  'url',
  'util',
  'util/types',
  'v8',
  'vm',
  'wasi',
  'worker_threads',
  'zlib',
];

const isBuiltin = (name) => builtinModules.includes(String(name).replace(/^node:/, ''));

/** A `require` for a module at `filename`: built-in modules only. */
function createRequire(filename) {
  const requireBuiltin = (name) => {
    const found = builtin(String(name).replace(/^node:/, ''));
    if (found !== undefined) return found;
    throw notAvailable(`require(${JSON.stringify(name)}) at run time (from ${filename}; a task's own modules are bundled when it is built, so import them instead)`);
  };
  requireBuiltin.resolve = (name) => {
    if (isBuiltin(name)) return String(name);
    throw notAvailable(`require.resolve(${JSON.stringify(name)})`);
  };
  requireBuiltin.cache = {};
  return requireBuiltin;
}

module.exports = unavailableModule(
  'module',
  ['register', 'syncBuiltinESMExports', 'findSourceMap', 'enableCompileCache', 'SourceMap'],
  { builtinModules, isBuiltin, createRequire },
);
module.exports.Module = module.exports;
