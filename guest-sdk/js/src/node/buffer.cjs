// node:buffer: Buffer from the `buffer` package (feross/buffer, what browserify ships), with
// the conversions of whole strings done by the engine's TextEncoder/TextDecoder instead of
// the package's per-byte JavaScript, and the module's later additions (Blob, File, atob,
// btoa, constants, isUtf8, isAscii). Loading it also sets `globalThis.Buffer`.

'use strict';

const vendored = require('../vendor/buffer.cjs');
const { unavailableFunction } = require('./internal/unavailable.cjs');

const { Buffer } = vendored;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const fatalDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const isUtf8Encoding = (encoding) =>
  encoding === undefined || encoding === 'utf8' || encoding === 'utf-8' ||
  (typeof encoding === 'string' && /^utf-?8$/i.test(encoding));

/** The bytes of a string in UTF-8 as a Buffer over the encoder's output (no copy). */
function utf8Buffer(string) {
  const bytes = encoder.encode(string);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const from = Buffer.from;
Buffer.from = function bufferFrom(value, encodingOrOffset, length) {
  if (typeof value === 'string' && isUtf8Encoding(encodingOrOffset || undefined)) {
    return utf8Buffer(value);
  }
  return from.call(Buffer, value, encodingOrOffset, length);
};

const byteLength = Buffer.byteLength;
Buffer.byteLength = function bufferByteLength(value, encoding) {
  if (typeof value === 'string' && isUtf8Encoding(encoding)) return encoder.encode(value).byteLength;
  return byteLength.apply(Buffer, arguments);
};

const toString = Buffer.prototype.toString;
Buffer.prototype.toString = function bufferToString(encoding, start, end) {
  if (isUtf8Encoding(encoding)) {
    const length = this.length;
    start = start === undefined || start < 0 ? 0 : start >>> 0;
    end = end === undefined || end > length ? length : end >>> 0;
    if (start >= end) return '';
    return decoder.decode(start === 0 && end === length ? this : this.subarray(start, end));
  }
  return toString.apply(this, arguments);
};

const write = Buffer.prototype.write;
Buffer.prototype.write = function bufferWrite(string, offset, length, encoding) {
  const args = arguments;
  if (typeof offset === 'string') {
    encoding = offset;
    offset = 0;
    length = undefined;
  } else if (typeof length === 'string') {
    encoding = length;
    length = undefined;
  }
  if (typeof string === 'string' && isUtf8Encoding(encoding)) {
    offset = offset === undefined ? 0 : offset >>> 0;
    if (offset > this.length) throw new RangeError('Attempt to write outside buffer bounds');
    const end = length === undefined ? this.length : Math.min(this.length, offset + (length >>> 0));
    return encoder.encodeInto(string, this.subarray(offset, end)).written;
  }
  return write.apply(this, args);
};

/** Whether the bytes are valid UTF-8. */
function isUtf8(input) {
  try {
    fatalDecoder.decode(input);
    return true;
  } catch {
    return false;
  }
}

/** Whether every byte is 7-bit ASCII. */
function isAscii(input) {
  const bytes = ArrayBuffer.isView(input)
    ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
    : new Uint8Array(input);
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > 127) return false;
  return true;
}

globalThis.Buffer ??= Buffer;

module.exports = {
  ...vendored,
  Buffer,
  Blob: globalThis.Blob,
  File: globalThis.File,
  atob: globalThis.atob,
  btoa: globalThis.btoa,
  constants: { MAX_LENGTH: vendored.kMaxLength, MAX_STRING_LENGTH: 2 ** 29 - 24 },
  kStringMaxLength: 2 ** 29 - 24,
  isUtf8,
  isAscii,
  transcode: unavailableFunction('buffer.transcode'),
  resolveObjectURL: unavailableFunction('buffer.resolveObjectURL'),
};
