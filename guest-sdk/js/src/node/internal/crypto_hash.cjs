// node:crypto's hashes and HMACs (createHash, createHmac, hash, getHashes) computed by the
// host (the SDK's natives) rather than by JavaScript in the guest: Node's `Hash` and `Hmac`
// methods (update with an input encoding, digest with an output encoding, Hash's copy), its
// algorithm names (`sha256`, `SHA256`, `sha-256`, `RSA-SHA256`) and its error codes. The
// objects are not streams (Node's are Transforms): write()/pipe() are not there.

'use strict';

const natives = require('../../natives.js');
const { Buffer } = require('../buffer.cjs');

const HASHES = ['md5', 'sha1', 'sha256', 'sha384', 'sha512'];
/** Input handed to the host in pieces of at most this size (it bounds each call). */
const UPDATE_CHUNK = 16 * 1024 * 1024;

function codedError(Class, code, message) {
  const error = new Class(message);
  error.code = code;
  return error;
}

/** The natives' name of a Node digest name, or undefined. */
function digestName(algorithm) {
  if (typeof algorithm !== 'string') return undefined;
  const name = algorithm.toLowerCase().replace(/^rsa-/, '').replace('-', '');
  return HASHES.includes(name) ? name : undefined;
}

/** `data` (a string in `encoding`, a Buffer, TypedArray, DataView or ArrayBuffer) as bytes. */
function inputBytes(data, encoding, name = 'data') {
  if (typeof data === 'string') return Buffer.from(data, encoding || 'utf8');
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw codedError(
    TypeError,
    'ERR_INVALID_ARG_TYPE',
    `The "${name}" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ${data === null ? 'null' : typeof data}`,
  );
}

/** The digest as a Buffer, or a string in `encoding`. */
function output(bytes, encoding) {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return encoding === undefined || encoding === 'buffer' ? buffer : buffer.toString(encoding);
}

/** What Hash and Hmac share: a host hasher fed in bounded pieces, finalised once. */
class Digest {
  #native;
  #finalized = false;

  constructor(native) {
    this.#native = native;
  }

  update(data, inputEncoding) {
    if (this.#finalized) throw codedError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    const bytes = inputBytes(data, inputEncoding);
    if (bytes.length <= UPDATE_CHUNK) this.#native.update(bytes);
    else for (let offset = 0; offset < bytes.length; offset += UPDATE_CHUNK) this.#native.update(bytes.subarray(offset, offset + UPDATE_CHUNK));
    return this;
  }

  digest(outputEncoding) {
    if (this.#finalized) throw codedError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    this.#finalized = true;
    return output(this.#native.digest(), outputEncoding);
  }

  /** A new Digest of the same kind from a copy of the host state. */
  _copy(Kind) {
    if (this.#finalized) throw codedError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
    return new Kind(this.#native.copy());
  }
}

class Hash extends Digest {
  copy() {
    return this._copy(Hash);
  }
}

class Hmac extends Digest {}

function createHash(algorithm) {
  const name = digestName(algorithm);
  if (!name) throw new Error(`Digest method not supported: ${String(algorithm)} (bench hashes ${HASHES.join(', ')})`);
  return new Hash(natives.createHash(name));
}

/** The bytes of an HMAC key: a string (UTF-8), bytes, or a secret KeyObject. */
function keyBytes(key) {
  if (key && typeof key === 'object' && key.type === 'secret' && typeof key.export === 'function') {
    return inputBytes(key.export(), undefined, 'key');
  }
  return inputBytes(key, 'utf8', 'key');
}

function createHmac(algorithm, key) {
  const name = digestName(algorithm);
  if (!name) throw codedError(TypeError, 'ERR_CRYPTO_INVALID_DIGEST', `Invalid digest: ${String(algorithm)}`);
  return new Hmac(natives.createHmac(name, keyBytes(key)));
}

/** One-shot digest (Node 21.7's `crypto.hash`): hex unless told otherwise. */
function hash(algorithm, data, outputEncoding = 'hex') {
  return createHash(algorithm).update(data).digest(outputEncoding);
}

module.exports = { Hash, Hmac, createHash, createHmac, hash, getHashes: () => [...HASHES], inputBytes };
