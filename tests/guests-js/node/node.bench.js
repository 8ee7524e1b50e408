// Node's built-in modules and globals in the sandbox: each check runs a piece of Node API
// the way packages use it and compares with what Node answers. The task returns the names
// of the checks that ran and the failures; `--check NAME` runs one check only.
import { defineBenchmarkConfig, defineTask } from '@bench/task';
import assert from 'node:assert';
import { strict as strictAssert } from 'assert';
import { Buffer as ImportedBuffer } from 'node:buffer';
import EventEmitter, { once } from 'events';
import { Readable, PassThrough, Transform, pipeline } from 'node:stream';
import { pipeline as pipelinePromise } from 'stream/promises';
import { text as streamText } from 'node:stream/consumers';
import { ReadableStream as WebReadableStream } from 'node:stream/web';
import util, { promisify, types } from 'util';
import { isUint8Array } from 'node:util/types';
import path from 'path';
import url, { fileURLToPath, pathToFileURL } from 'node:url';
import querystring from 'querystring';
import { StringDecoder } from 'node:string_decoder';
import os from 'node:os';
import timers from 'node:timers';
import { setTimeout as sleep } from 'timers/promises';
import fs from 'fs';
import { readFile } from 'node:fs/promises';
import net from 'net';
import childProcess from 'node:child_process';
import dns from 'dns';
import http from 'node:http';
import https from 'https';
import nodeProcess from 'node:process';
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import nodeCrypto from 'node:crypto';
import zlib from 'zlib';
import required from './required.cjs';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'js-node',
  benchmarkName: 'JS Node compatibility',
  participants: [{ name: 'p', requiredEnvVars: [] }],
  iterations: 1,
  allowedHosts: ['http://127.0.0.1:*'],
  customCliFlags: ['--check', '--url'],
});

const notAvailable = (fn, what) =>
  assert.throws(fn, (error) => error.code === 'ERR_METHOD_NOT_IMPLEMENTED' && error.message === `${what} is not available in the bench sandbox`);

const checks = {
  async buffer() {
    assert.strictEqual(Buffer, ImportedBuffer);
    assert.strictEqual(globalThis.Buffer, Buffer);
    assert.strictEqual(Buffer.from('héllo').toString('hex'), '68c3a96c6c6f');
    assert.strictEqual(Buffer.from('aGVsbG8=', 'base64').toString(), 'hello');
    assert.strictEqual(Buffer.from([0xef, 0xbb, 0xbf, 0x41]).toString(), '\ufeffA');
    assert.strictEqual(Buffer.byteLength('€'), 3);
    assert.strictEqual(Buffer.concat([Buffer.from('a'), new Uint8Array([98])]).toString('latin1'), 'ab');
    const written = Buffer.alloc(4);
    assert.strictEqual(written.write('€€', 0, 'utf8'), 3);
    assert.ok(Buffer.isBuffer(Buffer.from('x')) && Buffer.from('x') instanceof Uint8Array);
    assert.strictEqual(Buffer.from('ff00', 'hex').readUInt16BE(0), 0xff00);
  },
  async events() {
    assert.strictEqual(typeof required.events, 'function', "require('events') is EventEmitter");
    const emitter = new EventEmitter();
    setTimeout(() => emitter.emit('ready', 42), 1);
    assert.deepStrictEqual(await once(emitter, 'ready'), [42]);
    class Child extends required.events {}
    assert.ok(new Child() instanceof EventEmitter);
  },
  async stream() {
    assert.strictEqual(typeof required.stream, 'function', "require('stream') is Stream");
    assert.strictEqual(required.stream.Readable, Readable);
    const upper = new Transform({ transform: (chunk, _e, done) => done(null, String(chunk).toUpperCase()) });
    const collected = [];
    await pipelinePromise(Readable.from(['a', 'b']), upper, new PassThrough(), async (source) => {
      for await (const chunk of source) collected.push(String(chunk));
    });
    assert.strictEqual(collected.join(''), 'AB');
    assert.strictEqual(await streamText(Readable.from(['x', 'y'])), 'xy');
    const web = Readable.toWeb(Readable.from([Buffer.from('w')]));
    assert.ok(web instanceof WebReadableStream);
    assert.strictEqual(await streamText(Readable.fromWeb(web)), 'w');
    await new Promise((resolve, reject) => pipeline(Readable.from(['z']), new PassThrough(), (error) => (error ? reject(error) : resolve())));
  },
  async web_streams() {
    const stream = new ReadableStream({ start(controller) { controller.enqueue('a'); controller.enqueue('b'); controller.close(); } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.deepStrictEqual(chunks, ['a', 'b']);
  },
  async xml() {
    const document = new DOMParser().parseFromString('<a><b id="1">x</b><b>y</b></a>', 'text/xml');
    const items = document.getElementsByTagName('b');
    assert.strictEqual(items.length, 2);
    assert.strictEqual(items[0].getAttribute('id'), '1');
    assert.strictEqual(items[1].firstChild.nodeType, Node.TEXT_NODE);
    assert.strictEqual(new XMLSerializer().serializeToString(items[0]), '<b id="1">x</b>');
  },
  async util() {
    assert.strictEqual(util.format('%s=%d %j', 'a', 5, { b: 1 }), 'a=5 {"b":1}');
    assert.strictEqual(await promisify((value, callback) => callback(null, value * 2))(21), 42);
    assert.ok(types.isUint8Array(Buffer.alloc(1)) && isUint8Array(new Uint8Array(1)));
    assert.ok(util.inspect({ a: [1] }).includes('a'));
    assert.strictEqual(new util.TextDecoder().decode(new util.TextEncoder().encode('é')), 'é');
    assert.ok(util.isDeepStrictEqual({ a: 1 }, { a: 1 }) && !util.isDeepStrictEqual({ a: 1 }, { a: '1' }));
  },
  async path_url_querystring() {
    assert.strictEqual(path.join('/a', '../b', 'c.txt'), '/b/c.txt');
    assert.strictEqual(path.posix.extname('x.tar.gz'), '.gz');
    assert.strictEqual(url.parse('http://x.test/a?b=1').query, 'b=1');
    assert.strictEqual(fileURLToPath('file:///a%20b'), '/a b');
    assert.strictEqual(pathToFileURL('/a b').href, 'file:///a%20b');
    assert.strictEqual(url.format(new URL('http://u:p@x.test/#h'), { auth: false, fragment: false }), 'http://x.test/');
    assert.strictEqual(querystring.stringify({ a: 1, b: 'x y' }), 'a=1&b=x%20y');
    assert.deepStrictEqual({ ...querystring.parse('a=1&a=2&b=%20') }, { a: ['1', '2'], b: ' ' });
  },
  async string_decoder() {
    const decoder = new StringDecoder('utf8');
    const euro = Buffer.from('€');
    assert.strictEqual(decoder.write(euro.subarray(0, 1)) + decoder.write(euro.subarray(1)) + decoder.end(), '€');
  },
  async os_process() {
    assert.strictEqual(os.platform(), 'linux');
    assert.strictEqual(os.EOL, '\n');
    assert.strictEqual(typeof os.homedir(), 'string');
    assert.strictEqual(nodeProcess, process);
    assert.ok(/^v\d+\.\d+\.\d+$/.test(process.version) && process.versions.node === process.version.slice(1));
    assert.strictEqual(process.platform, 'linux');
    const ticked = await new Promise((resolve) => process.nextTick(resolve, 'tick'));
    assert.strictEqual(ticked, 'tick');
    const [seconds, nanoseconds] = process.hrtime();
    assert.ok(seconds >= 0 && nanoseconds >= 0 && typeof process.hrtime.bigint() === 'bigint');
    assert.strictEqual(global, globalThis);
    assert.deepStrictEqual(process.argv.slice(0, 2), ['bench', 'task']);
  },
  async timers() {
    assert.strictEqual(await new Promise((resolve) => setImmediate(resolve, 'now')), 'now');
    const timer = timers.setTimeout(() => {}, 10);
    assert.strictEqual(timer.unref(), timer);
    timers.clearTimeout(timer);
    assert.strictEqual(await sleep(1, 'slept'), 'slept');
  },
  async assert() {
    strictAssert.deepEqual([1, { a: 2 }], [1, { a: 2 }]);
    assert.throws(() => strictAssert.equal(1, 2), assert.AssertionError);
    await assert.rejects(Promise.reject(new Error('no')), /no/);
  },
  async unavailable() {
    notAvailable(() => fs.readFileSync('/etc/passwd'), 'fs.readFileSync');
    notAvailable(() => net.connect(80), 'net.connect');
    notAvailable(() => childProcess.spawn('sh'), 'child_process.spawn');
    notAvailable(() => dns.lookup('x.test', () => {}), 'dns.lookup');
    const requireAtRunTime = createRequire(import.meta.url);
    assert.strictEqual(requireAtRunTime('node:events'), EventEmitter);
    assert.throws(() => requireAtRunTime('./elsewhere.js'), (error) => error.code === 'ERR_METHOD_NOT_IMPLEMENTED');
    await assert.rejects(readFile('/etc/passwd'), (error) => error.message === 'fs.promises.readFile is not available in the bench sandbox');
    assert.strictEqual(fs.constants.O_RDONLY, 0);
    assert.strictEqual(net.isIP('127.0.0.1'), 4);
    assert.strictEqual(net.isIP('::1'), 6);
    assert.strictEqual(net.isIP('x'), 0);
  },
  async async_hooks() {
    const storage = new AsyncLocalStorage();
    assert.strictEqual(storage.run(7, () => storage.getStore()), 7);
    assert.strictEqual(storage.getStore(), undefined);
    const seen = [];
    diagnostics.channel('test').subscribe((message) => seen.push(message));
    diagnostics.channel('test').publish(1);
    assert.deepStrictEqual(seen, [1]);
  },
  async crypto() {
    const hex = (algorithm, ...parts) => parts.reduce((hash, part) => hash.update(part), nodeCrypto.createHash(algorithm)).digest('hex');
    assert.strictEqual(hex('sha256', 'abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.strictEqual(nodeCrypto.createHash('SHA-1').update('a').update(Buffer.from('bc')).digest('base64'), 'qZk+NkcGgWq6PiVxeFDCbJzQ2J0=');
    assert.strictEqual(hex('md5', ''), 'd41d8cd98f00b204e9800998ecf8427e');
    assert.strictEqual(
      nodeCrypto.createHmac('sha256', 'key').update('The quick brown fox jumps over the lazy dog').digest('hex'),
      'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    );
    const hash = nodeCrypto.createHash('sha512').update('ab');
    const copy = hash.copy();
    assert.strictEqual(hash.digest('hex').slice(0, 16), '2d408a0717ec1881');
    assert.strictEqual(copy.update('c').digest('hex').slice(0, 16), 'ddaf35a193617aba');
    assert.throws(() => hash.digest(), (error) => error.code === 'ERR_CRYPTO_HASH_FINALIZED');
    assert.throws(() => nodeCrypto.createHash('sha3-999'), /Digest method not supported/);
    assert.throws(() => nodeCrypto.createHmac('nope', 'k'), (error) => error.code === 'ERR_CRYPTO_INVALID_DIGEST');
    assert.ok(Buffer.isBuffer(nodeCrypto.createHash('sha256').digest()));
    assert.strictEqual(nodeCrypto.randomBytes(70000).length, 70000);
  },
  async zlib() {
    assert.strictEqual(zlib.crc32('hello'), 907060870);
    assert.strictEqual(zlib.crc32(Buffer.from(' world'), zlib.crc32('hello')), 222957957);
    assert.strictEqual(zlib.gunzipSync(zlib.gzipSync('hi there')).toString(), 'hi there');
    assert.strictEqual(zlib.inflateSync(zlib.deflateSync(Buffer.from('x'.repeat(1000)))).length, 1000);
    assert.strictEqual(zlib.unzipSync(zlib.deflateSync('u')).toString(), 'u');
    assert.strictEqual((await promisify(zlib.gunzip)(await promisify(zlib.gzip)('async'))).toString(), 'async');
    const chunks = [];
    await pipelinePromise(Readable.from([Buffer.from('str'), Buffer.from('eamed')]), zlib.createGzip(), zlib.createGunzip(), async (source) => {
      for await (const chunk of source) chunks.push(chunk);
    });
    assert.strictEqual(Buffer.concat(chunks).toString(), 'streamed');
    assert.throws(() => zlib.gunzipSync(Buffer.from('not gzip')));
    notAvailable(() => zlib.brotliCompressSync('x'), 'zlib.brotliCompressSync');
  },
  async subtle() {
    const subtle = globalThis.crypto.subtle;
    for (const method of ['decrypt', 'digest', 'encrypt', 'exportKey', 'generateKey', 'importKey', 'sign', 'verify']) {
      assert.strictEqual(typeof subtle[method], 'function', method);
    }
    const hex = (buffer) => Buffer.from(buffer).toString('hex');
    const gcm = await subtle.importKey('raw', new Uint8Array(16), { name: 'AES-GCM' }, true, ['encrypt', 'decrypt']);
    assert.ok(gcm instanceof CryptoKey);
    assert.strictEqual(hex(await subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, gcm, new Uint8Array(0))), '58e2fccefa7e3061367f1d57a4e7455a');
    const cbc = await subtle.importKey('raw', new Uint8Array(16).fill(1), { name: 'AES-CBC' }, true, ['encrypt']);
    assert.strictEqual(hex(await subtle.encrypt({ name: 'AES-CBC', iv: new Uint8Array(16) }, cbc, Buffer.from('bench'))), '574bbb530e0bb8fba28f33bfeb33e375');
    assert.deepStrictEqual(await subtle.exportKey('jwk', cbc), { kty: 'oct', k: 'AQEBAQEBAQEBAQEBAQEBAQ', alg: 'A128CBC', ext: true, key_ops: ['encrypt'] });
    const ctr = await subtle.importKey('raw', new Uint8Array(16).fill(2), { name: 'AES-CTR' }, true, ['encrypt']);
    assert.strictEqual(hex(await subtle.encrypt({ name: 'AES-CTR', counter: new Uint8Array(16), length: 64 }, ctr, Buffer.from('bench'))), 'a901a15c2a');
    const key = await subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const iv = globalThis.crypto.getRandomValues(new Uint8Array(12));
    const sealed = await subtle.encrypt({ name: 'AES-GCM', iv }, key, Buffer.from('secret'));
    assert.strictEqual(Buffer.from(await subtle.decrypt({ name: 'AES-GCM', iv }, key, sealed)).toString(), 'secret');
    new Uint8Array(sealed)[0] ^= 1;
    await assert.rejects(subtle.decrypt({ name: 'AES-GCM', iv }, key, sealed), (error) => error.name === 'OperationError');
    await assert.rejects(subtle.exportKey('raw', key), (error) => error.name === 'InvalidAccessError');
    const mac = await subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign', 'verify']);
    assert.strictEqual((await subtle.exportKey('raw', mac)).byteLength, 64);
    const signature = await subtle.sign('HMAC', mac, Buffer.from('data'));
    assert.ok(await subtle.verify('HMAC', mac, signature, Buffer.from('data')));
    await assert.rejects(subtle.generateKey({ name: 'Ed25519' }, false, ['sign']), (error) => error.name === 'NotSupportedError');
  },
  async http(ctx) {
    const target = ctx.arg('--url');
    if (!target) return;
    const response = await new Promise((resolve, reject) => {
      const request = http.request(`${target}echo?q=1`, { method: 'POST', headers: { 'x-test': 'yes', expect: '100-continue' } }, resolve);
      request.on('error', reject);
      request.on('continue', () => request.end('body'));
    });
    assert.strictEqual(response.statusCode, 200);
    let body = '';
    for await (const chunk of response) body += chunk;
    assert.strictEqual(body, 'POST /echo?q=1 x-test=yes body');
    assert.strictEqual(response.headers['content-type'], 'text/plain');
    const got = await new Promise((resolve, reject) => http.get(`${target}echo`, resolve).on('error', reject));
    got.resume();
    assert.strictEqual(got.statusCode, 200);
    assert.strictEqual(typeof https.request, 'function');
    const refused = await new Promise((resolve) => http.get('http://10.255.255.1:9/', () => resolve(null)).on('error', resolve));
    assert.ok(refused instanceof Error, 'a host outside the allowlist is an error event');
  },
};

export const task = defineTask(async (ctx) => {
  const only = ctx.arg('--check');
  const failures = {};
  const ran = [];
  for (const [name, check] of Object.entries(checks)) {
    if (only && name !== only) continue;
    ran.push(name);
    try {
      await check(ctx);
    } catch (error) {
      failures[name] = `${error?.name}: ${error?.message}`;
    }
  }
  return { data: { ran, failures } };
});
