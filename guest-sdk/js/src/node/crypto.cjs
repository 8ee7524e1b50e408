// node:crypto: hashes and HMACs computed by the host (createHash, createHmac, hash), random
// values (randomBytes, randomFill, randomInt, randomUUID, getRandomValues), timingSafeEqual
// and WebCrypto (`webcrypto`, `subtle`). Ciphers, key objects and signatures throw when
// called.

'use strict';

const { Buffer } = require('./buffer.cjs');
const { Hash, Hmac, createHash, createHmac, hash, getHashes } = require('./internal/crypto_hash.cjs');
const { unavailableModule } = require('./internal/unavailable.cjs');

const webcrypto = globalThis.crypto;
/** getRandomValues fills at most this many bytes per call (the Web Crypto limit). */
const RANDOM_CHUNK = 65536;

function fillRandom(bytes) {
  for (let offset = 0; offset < bytes.length; offset += RANDOM_CHUNK) {
    webcrypto.getRandomValues(bytes.subarray(offset, offset + RANDOM_CHUNK));
  }
  return bytes;
}

function checkSize(size) {
  if (!Number.isSafeInteger(size) || size < 0 || size > 2 ** 31 - 1) {
    const error = new RangeError(`The value of "size" is out of range. It must be >= 0 && <= 2147483647. Received ${size}`);
    error.code = 'ERR_OUT_OF_RANGE';
    throw error;
  }
}

/** `size` random bytes as a Buffer; with a callback, given to it asynchronously. */
function randomBytes(size, callback) {
  checkSize(size);
  const bytes = fillRandom(Buffer.alloc(size));
  if (typeof callback !== 'function') return bytes;
  queueMicrotask(() => callback(null, bytes));
  return undefined;
}

function viewOf(buffer, offset = 0, size) {
  const bytes = ArrayBuffer.isView(buffer)
    ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    : new Uint8Array(buffer);
  return bytes.subarray(offset, size === undefined ? undefined : offset + size);
}

function randomFillSync(buffer, offset, size) {
  fillRandom(viewOf(buffer, offset, size));
  return buffer;
}

function randomFill(buffer, offset, size, callback) {
  const done = [offset, size, callback].find((argument) => typeof argument === 'function');
  randomFillSync(buffer, typeof offset === 'number' ? offset : 0, typeof size === 'number' ? size : undefined);
  queueMicrotask(() => done(null, buffer));
}

/** A uniformly random integer in [min, max). */
function randomInt(min, max, callback) {
  if (typeof max !== 'number') {
    callback = max;
    max = min;
    min = 0;
  }
  const range = max - min;
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || range <= 0 || range > 2 ** 48) {
    const error = new RangeError(`The value of "max" is out of range. It must be greater than the value of "min" (${min}) and the range at most 2^48. Received ${max}`);
    error.code = 'ERR_OUT_OF_RANGE';
    throw error;
  }
  const limit = 2 ** 48 - (2 ** 48 % range);
  let value;
  do {
    const bytes = fillRandom(new Uint8Array(6));
    value = bytes.reduce((sum, byte) => sum * 256 + byte, 0);
  } while (value >= limit);
  const result = min + (value % range);
  if (typeof callback !== 'function') return result;
  queueMicrotask(() => callback(null, result));
  return undefined;
}

/** Compares two buffers of equal length in time that does not depend on their contents. */
function timingSafeEqual(a, b) {
  const left = viewOf(a);
  const right = viewOf(b);
  if (left.byteLength !== right.byteLength) {
    const error = new RangeError('Input buffers must have the same byte length');
    error.code = 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH';
    throw error;
  }
  let difference = 0;
  for (let i = 0; i < left.length; i++) difference |= left[i] ^ right[i];
  return difference === 0;
}

module.exports = unavailableModule(
  'crypto',
  [
    'createCipheriv', 'createDecipheriv', 'createSign',
    'createVerify', 'sign', 'verify', 'createPublicKey', 'createPrivateKey', 'createSecretKey',
    'generateKeyPair', 'generateKeyPairSync', 'generateKey', 'generateKeySync', 'pbkdf2',
    'pbkdf2Sync', 'scrypt', 'scryptSync', 'hkdf', 'hkdfSync', 'createDiffieHellman',
    'createECDH', 'diffieHellman', 'publicEncrypt', 'privateDecrypt', 'privateEncrypt',
    'publicDecrypt', 'getDiffieHellman', 'Certificate', 'X509Certificate', 'KeyObject',
    'Cipheriv', 'Decipheriv', 'Sign', 'Verify', 'checkPrime', 'checkPrimeSync',
    'generatePrime', 'generatePrimeSync', 'setEngine', 'secureHeapUsed',
  ],
  {
    createHash,
    createHmac,
    hash,
    Hash,
    Hmac,
    randomBytes,
    pseudoRandomBytes: randomBytes,
    randomFill,
    randomFillSync,
    randomInt,
    randomUUID: () => webcrypto.randomUUID(),
    getRandomValues: (array) => webcrypto.getRandomValues(array),
    timingSafeEqual,
    webcrypto,
    subtle: webcrypto.subtle,
    getHashes,
    getCiphers: () => [],
    getCurves: () => [],
    getFips: () => 0,
    setFips() {},
    constants: {},
  },
);
