// node:zlib: gzip, deflate (zlib) and raw deflate, and crc32, computed by the host (the
// SDK's natives): the one-shot functions (`gzipSync`, `gunzip(buffer, callback)`, …), the
// Transform streams (`createGzip()`, `createInflate()`, …, `unzip` telling gzip from zlib
// by the first bytes) and the constants. Brotli throws when called. One call compresses or
// decompresses at most the host's bound (64 MiB; past it a RangeError).

'use strict';

const natives = require('../natives.js');
const { Buffer } = require('./buffer.cjs');
const { Transform } = require('./stream.cjs');
const { inputBytes } = require('./internal/crypto_hash.cjs');
const { unavailableModule } = require('./internal/unavailable.cjs');

const constants = {
  Z_NO_FLUSH: 0, Z_PARTIAL_FLUSH: 1, Z_SYNC_FLUSH: 2, Z_FULL_FLUSH: 3, Z_FINISH: 4, Z_BLOCK: 5,
  Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3,
  Z_MEM_ERROR: -4, Z_BUF_ERROR: -5, Z_VERSION_ERROR: -6, Z_NO_COMPRESSION: 0, Z_BEST_SPEED: 1,
  Z_BEST_COMPRESSION: 9, Z_DEFAULT_COMPRESSION: -1, Z_FILTERED: 1, Z_HUFFMAN_ONLY: 2, Z_RLE: 3,
  Z_FIXED: 4, Z_DEFAULT_STRATEGY: 0, ZLIB_VERNUM: 4865, DEFLATE: 1, INFLATE: 2, GZIP: 3,
  GUNZIP: 4, DEFLATERAW: 5, INFLATERAW: 6, UNZIP: 7, Z_MIN_WINDOWBITS: 8, Z_MAX_WINDOWBITS: 15,
  Z_DEFAULT_WINDOWBITS: 15, Z_MIN_CHUNK: 64, Z_MAX_CHUNK: Infinity, Z_DEFAULT_CHUNK: 16384,
  Z_MIN_MEMLEVEL: 1, Z_MAX_MEMLEVEL: 9, Z_DEFAULT_MEMLEVEL: 8, Z_MIN_LEVEL: -1, Z_MAX_LEVEL: 9,
  Z_DEFAULT_LEVEL: -1,
};

/** CRC checksums go to the host in pieces of at most this size (it bounds each call). */
const CRC_CHUNK = 16 * 1024 * 1024;

/** zlib's CRC-32 of `data` (a string is UTF-8), continuing from `value`. */
function crc32(data, value = 0) {
  const bytes = inputBytes(data, 'utf8');
  let crc = value >>> 0;
  if (bytes.length <= CRC_CHUNK) return natives.crc32(bytes, crc);
  for (let offset = 0; offset < bytes.length; offset += CRC_CHUNK) {
    crc = natives.crc32(bytes.subarray(offset, offset + CRC_CHUNK), crc);
  }
  return crc;
}

const toBuffer = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** 'gzip' or 'deflate', from the first bytes of a compressed stream (gzip's magic 1f 8b). */
const unzipFormat = (bytes) => (bytes[0] === 0x1f && bytes[1] === 0x8b ? 'gzip' : 'deflate');

/** The one-shot and stream kinds: Node's class name, the natives' format, the direction. */
const KINDS = [
  ['Gzip', 'gzip', 'compress'],
  ['Gunzip', 'gzip', 'decompress'],
  ['Deflate', 'deflate', 'compress'],
  ['Inflate', 'deflate', 'decompress'],
  ['DeflateRaw', 'deflate-raw', 'compress'],
  ['InflateRaw', 'deflate-raw', 'decompress'],
  ['Unzip', null, 'decompress'],
];

/** The whole of `data` through one kind. */
function convert(format, direction, data, options = {}) {
  const bytes = inputBytes(data, 'utf8', 'buffer');
  const chosen = format ?? unzipFormat(bytes);
  return toBuffer(direction === 'compress' ? natives.compress(chosen, bytes, options.level) : natives.decompress(chosen, bytes));
}

/** A Transform stream of one kind over a host (de)compression stream. */
function streamClass(name, format, direction) {
  const ZlibStream = class extends Transform {
    constructor(options = {}) {
      super(options);
      this._options = options;
      this._native = null;
      this.bytesWritten = 0;
    }

    /** The host stream, made at the first chunk (unzip needs it to tell the format). */
    _stream(first) {
      if (this._native === null) {
        const chosen = format ?? unzipFormat(first);
        this._native = direction === 'compress' ? natives.createCompressor(chosen, this._options.level) : natives.createDecompressor(chosen);
      }
      return this._native;
    }

    _transform(chunk, encoding, callback) {
      try {
        const bytes = inputBytes(chunk, encoding, 'chunk');
        this.bytesWritten += bytes.length;
        const out = this._stream(bytes).push(bytes);
        if (out.length > 0) this.push(toBuffer(out));
        callback();
      } catch (error) {
        callback(error);
      }
    }

    _flush(callback) {
      try {
        const out = this._stream(new Uint8Array(0)).finish();
        this._native = null;
        if (out.length > 0) this.push(toBuffer(out));
        callback();
      } catch (error) {
        callback(error);
      }
    }

    /** What was written so far, out (Z_SYNC_FLUSH); the callback once it is. */
    flush(kind, callback) {
      if (typeof kind === 'function') callback = kind;
      try {
        if (this._native !== null) {
          const out = this._native.flush();
          if (out.length > 0) this.push(toBuffer(out));
        }
        if (callback) queueMicrotask(callback);
      } catch (error) {
        this.destroy(error);
      }
    }

    params(level, strategy, callback) {
      if (callback) queueMicrotask(callback);
    }

    reset() {}

    close(callback) {
      if (callback) this.once('close', callback);
      this.destroy();
    }

    _destroy(error, callback) {
      this._native?.close();
      this._native = null;
      callback(error);
    }
  };
  Object.defineProperty(ZlibStream, 'name', { value: name });
  return ZlibStream;
}

const api = { constants, crc32 };
for (const [name, format, direction] of KINDS) {
  const method = name[0].toLowerCase() + name.slice(1);
  const Kind = streamClass(name, format, direction);
  api[name] = Kind;
  api[`create${name}`] = (options) => new Kind(options);
  api[`${method}Sync`] = (data, options) => convert(format, direction, data, options);
  api[method] = (data, options, callback) => {
    if (typeof options === 'function') {
      callback = options;
      options = {};
    }
    let result;
    let failure = null;
    try {
      result = convert(format, direction, data, options);
    } catch (error) {
      failure = error;
    }
    queueMicrotask(() => (failure ? callback(failure) : callback(null, result)));
  };
}
for (const [name, value] of Object.entries(constants)) if (name.startsWith('Z_')) api[name] = value;

const brotli = [];
for (const name of ['BrotliCompress', 'BrotliDecompress']) {
  const method = name[0].toLowerCase() + name.slice(1);
  brotli.push(name, `create${name}`, method, `${method}Sync`);
}

module.exports = unavailableModule('zlib', brotli, api);
