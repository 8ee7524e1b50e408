// Hashes, HMACs, CRCs, base64/hex, random bytes, compression and AES computed by the bench
// host (the `bench:task/natives` interface) instead of by JavaScript in the guest. Every
// function is synchronous and takes bytes as a Uint8Array (an ArrayBuffer or any other
// ArrayBufferView is read as its bytes). Bad arguments throw a TypeError, input or output
// past the host's bounds (64 MiB per call, 1024 live hashers, 32 live streams) a
// RangeError, data that cannot be decoded or authenticated an Error; each carries
// `reason`: 'invalid-argument', 'limit' or 'invalid-data'.

import * as host from 'bench:task/natives@0.1.4';

const HASHES = new Set(['md5', 'sha1', 'sha256', 'sha384', 'sha512']);
const COMPRESSION_FORMATS = new Set(['gzip', 'deflate', 'deflate-raw']);
const AES_MODES = { 'AES-GCM': 'gcm', 'AES-CBC': 'cbc', 'AES-CTR': 'ctr' };

/** Inputs up to this size wait in the hash object, so a short hash is one host call. */
const PENDING_BYTES = 64 * 1024;

const ERRORS = {
  'invalid-argument': TypeError,
  limit: RangeError,
  'invalid-data': Error,
};

/** Runs a host call, turning its `native-error` into a JS error of the matching class. */
function call(fn, ...args) {
  try {
    return fn(...args);
  } catch (error) {
    const payload = error?.payload;
    const Class = payload && ERRORS[payload.tag];
    if (!Class) throw error;
    const native = new Class(payload.val);
    native.reason = payload.tag;
    throw native;
  }
}

/** The bytes of a Uint8Array, ArrayBuffer or other ArrayBufferView. */
function bytes(value, what) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`${what} must be a Uint8Array, ArrayBuffer or ArrayBufferView (got ${typeof value})`);
}

function hashName(algorithm) {
  const name = typeof algorithm === 'string' ? algorithm.toLowerCase().replace('-', '') : '';
  if (!HASHES.has(name)) {
    throw new TypeError(`unsupported hash algorithm ${JSON.stringify(String(algorithm))} (natives hash md5, sha1, sha256, sha384 and sha512)`);
  }
  return name;
}

function dispose(resource) {
  const symbol = Symbol.dispose ?? Symbol.for('dispose');
  resource[symbol]?.();
}

/** An incremental hash (or HMAC with a key): `update(bytes)` (chainable), `digest()`, `copy()`. */
class NativeHash {
  #algorithm;
  #key;
  #hasher = null;
  #pending = null;
  #done = false;

  constructor(algorithm, key) {
    this.#algorithm = algorithm;
    this.#key = key;
  }

  update(data) {
    if (this.#done) throw new Error('digest already called');
    const input = bytes(data, 'data');
    if (this.#hasher === null && this.#pending === null && input.length <= PENDING_BYTES) {
      this.#pending = input.slice();
      return this;
    }
    this.#start().update(input);
    return this;
  }

  digest() {
    if (this.#done) throw new Error('digest already called');
    this.#done = true;
    if (this.#hasher === null) {
      return call(host.digest, this.#algorithm, this.#key, this.#pending ?? new Uint8Array(0));
    }
    const hasher = this.#hasher;
    this.#hasher = null;
    try {
      return call(() => hasher.finish());
    } finally {
      dispose(hasher);
    }
  }

  copy() {
    if (this.#done) throw new Error('digest already called');
    const copy = new NativeHash(this.#algorithm, this.#key);
    if (this.#hasher !== null) copy.#hasher = call(() => this.#hasher.copy());
    else if (this.#pending !== null) copy.#pending = this.#pending;
    return copy;
  }

  /** The host hasher, created on first need with the input that waited. */
  #start() {
    if (this.#hasher === null) {
      this.#hasher = call(() => host.Hasher.create(this.#algorithm, this.#key));
      if (this.#pending !== null) {
        const pending = this.#pending;
        this.#pending = null;
        call(() => this.#hasher.update(pending));
      }
    }
    return this.#hasher;
  }
}

/** A hash of 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512' ('SHA-256' and other cases too). */
export function createHash(algorithm) {
  return new NativeHash(hashName(algorithm), undefined);
}

/** An HMAC of one of those hashes under `key` (bytes of any length). */
export function createHmac(algorithm, key) {
  return new NativeHash(hashName(algorithm), bytes(key, 'key').slice());
}

/** CRC-32 (zlib's) of `data`, continuing from `previous`: an unsigned 32-bit number. */
export function crc32(data, previous = 0) {
  return continued(host.crc32, CRC32_POLYNOMIAL, bytes(data, 'data'), previous >>> 0);
}

/** CRC-32C (Castagnoli) of `data`, continuing from `previous`. */
export function crc32c(data, previous = 0) {
  return continued(host.crc32c, CRC32C_POLYNOMIAL, bytes(data, 'data'), previous >>> 0);
}

// componentize-js 0.23 passes a u32 argument of 2^31 or more to the host wrongly (the low
// bits are lost). A CRC continuing from such a value is the host's CRC of `data` from 0
// combined with `previous` as zlib's crc32_combine does: previous·x^(8·length) mod P.
const CRC32_POLYNOMIAL = 0xedb88320;
const CRC32C_POLYNOMIAL = 0x82f63b78;
const SIGNED_LIMIT = 0x80000000;

function continued(checksum, polynomial, data, previous) {
  if (previous < SIGNED_LIMIT) return call(checksum, data, previous);
  const fresh = call(checksum, data, 0);
  return (multiplyModP(shiftOperator(polynomial, data.length), previous, polynomial) ^ fresh) >>> 0;
}

/** a(x)·b(x) modulo the reflected polynomial (zlib's multmodp); `a` is never 0 here. */
function multiplyModP(a, b, polynomial) {
  let product = 0;
  for (let m = SIGNED_LIMIT; ; m >>>= 1) {
    if ((a & m) !== 0) {
      product ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    b = b & 1 ? (b >>> 1) ^ polynomial : b >>> 1;
  }
  return product >>> 0;
}

/** x^(8·length) modulo the polynomial, by squaring (zlib's x2nmodp). */
function shiftOperator(polynomial, length) {
  let power = 1 << 30; // x^1
  let operator = SIGNED_LIMIT; // x^0
  // x^(2^k) for k = 0, 1, 2: x^8 is where byte counts start.
  for (let k = 0; k < 3; k++) power = multiplyModP(power, power, polynomial);
  for (let n = length; n > 0; n = Math.floor(n / 2)) {
    if (n % 2 === 1) operator = multiplyModP(power, operator, polynomial);
    power = multiplyModP(power, power, polynomial);
  }
  return operator;
}

/** `n` cryptographically secure random bytes. */
export function randomBytes(n) {
  if (!Number.isInteger(n) || n < 0) {
    throw new TypeError(`randomBytes takes a whole number of bytes (got ${String(n)})`);
  }
  if (n >= SIGNED_LIMIT) {
    // Past what the binding passes intact, and far past what the host returns in one call.
    const error = new RangeError(`${n} random bytes were asked for; a native call returns at most 67108864`);
    error.reason = 'limit';
    throw error;
  }
  return call(host.randomBytes, n);
}

/** Base64 of `data`: standard with padding, or URL-safe without when `urlSafe`. */
export function base64Encode(data, urlSafe = false) {
  return call(host.base64Encode, bytes(data, 'data'), Boolean(urlSafe));
}

/** The bytes of base64 text in either alphabet, padded or not, whitespace ignored. */
export function base64Decode(text) {
  if (typeof text !== 'string') throw new TypeError('base64Decode takes a string');
  return call(host.base64Decode, text);
}

/** Lowercase hex of `data`. */
export function hexEncode(data) {
  return call(host.hexEncode, bytes(data, 'data'));
}

/** The bytes of hex text (an even number of digits, either case). */
export function hexDecode(text) {
  if (typeof text !== 'string') throw new TypeError('hexDecode takes a string');
  return call(host.hexDecode, text);
}

function compressionFormat(format) {
  if (!COMPRESSION_FORMATS.has(format)) {
    throw new TypeError(`unsupported compression format ${JSON.stringify(String(format))} (natives compress gzip, deflate and deflate-raw)`);
  }
  return format;
}

function compressionLevel(level) {
  if (level === undefined || level === null || level === -1) return undefined;
  if (!Number.isInteger(level) || level < 0 || level > 9) {
    throw new TypeError(`the compression level must be a whole number from 0 to 9, or -1 for the default (got ${String(level)})`);
  }
  return level;
}

/** `data` compressed as 'gzip' | 'deflate' (zlib) | 'deflate-raw', at `level` 0–9 (default 6). */
export function compress(format, data, level) {
  return call(host.compress, compressionFormat(format), bytes(data, 'data'), compressionLevel(level));
}

/** `data` decompressed (the whole stream); output past 64 MiB throws a RangeError. */
export function decompress(format, data) {
  return call(host.decompress, compressionFormat(format), bytes(data, 'data'));
}

/** A (de)compression stream: `push(bytes)` and `flush()` return output so far, `finish()` the rest. */
class NativeStream {
  #stream;

  constructor(stream) {
    this.#stream = stream;
  }

  push(data) {
    const input = bytes(data, 'data');
    return call(() => this.#live().push(input));
  }

  flush() {
    const stream = this.#live();
    if (typeof stream.flush !== 'function') return new Uint8Array(0);
    return call(() => stream.flush());
  }

  finish() {
    const stream = this.#live();
    this.#stream = null;
    try {
      return call(() => stream.finish());
    } finally {
      dispose(stream);
    }
  }

  /** Releases the host stream without finishing it. */
  close() {
    if (this.#stream !== null) dispose(this.#stream);
    this.#stream = null;
  }

  #live() {
    if (this.#stream === null) throw new Error('the stream has ended');
    return this.#stream;
  }
}

/** An incremental compression stream (as `compress`). */
export function createCompressor(format, level) {
  const wit = compressionFormat(format);
  const witLevel = compressionLevel(level);
  return new NativeStream(call(() => host.Compressor.create(wit, witLevel)));
}

/** An incremental decompression stream (as `decompress`; at most 64 MiB of output per push). */
export function createDecompressor(format) {
  const wit = compressionFormat(format);
  return new NativeStream(call(() => host.Decompressor.create(wit)));
}

function aesArguments(mode, key, iv, data, options = {}) {
  const wit = AES_MODES[mode];
  if (wit === undefined) {
    throw new TypeError(`unsupported AES mode ${JSON.stringify(String(mode))} (natives do AES-GCM, AES-CBC and AES-CTR)`);
  }
  const additionalData = options.additionalData == null ? undefined : bytes(options.additionalData, 'additionalData');
  return [wit, bytes(key, 'key'), bytes(iv, 'iv'), bytes(data, 'data'), {
    additionalData,
    tagLength: optionalBits(options.tagLength, 'tagLength'),
    counterLength: optionalBits(options.length, 'length'),
  }];
}

function optionalBits(value, name) {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw new TypeError(`${name} must be a whole number of bits (got ${String(value)})`);
  }
  return value;
}

/**
 * `data` encrypted with AES in `mode` ('AES-GCM' | 'AES-CBC' | 'AES-CTR') under `key` (16, 24
 * or 32 bytes) with `iv` (GCM: 12 or 16 bytes; CBC: 16; CTR: the counter block), as WebCrypto
 * does it; `options`: `additionalData`, `tagLength` (GCM, bits) and `length` (CTR counter bits).
 */
export function aesEncrypt(mode, key, iv, data, options) {
  return call(host.aesEncrypt, ...aesArguments(mode, key, iv, data, options));
}

/** `data` decrypted as `aesEncrypt` made it (a GCM tag that does not verify throws). */
export function aesDecrypt(mode, key, iv, data, options) {
  return call(host.aesDecrypt, ...aesArguments(mode, key, iv, data, options));
}
