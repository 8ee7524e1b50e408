// What the engine's SubtleCrypto lacks and SDKs feature-test for (they check encrypt,
// decrypt, exportKey and generateKey besides digest, importKey and sign, and fall back to
// JavaScript hashing when one is missing): AES-GCM, AES-CBC and AES-CTR keys (generateKey,
// importKey and exportKey as raw or JWK, encrypt and decrypt, computed by the host), HMAC
// keys made by generateKey, and exportKey of the HMAC keys made or imported here. Other
// algorithms and formats stay the engine's. Installed once, when the component is
// initialised.

import * as natives from '../natives.js';

const proto = globalThis.SubtleCrypto?.prototype;
const AES = ['AES-GCM', 'AES-CBC', 'AES-CTR'];
const AES_USAGES = ['encrypt', 'decrypt', 'wrapKey', 'unwrapKey'];
const HMAC_USAGES = ['sign', 'verify'];
/** An HMAC key's default length in bits: its hash's block size (WebCrypto). */
const HMAC_BITS = { 'SHA-1': 512, 'SHA-256': 512, 'SHA-384': 1024, 'SHA-512': 1024 };

/** The raw bytes of the keys made here (AES and HMAC), for exportKey. */
const secrets = new WeakMap();

const domError = (name, message) => new DOMException(message, name);

function algorithmName(algorithm) {
  const name = typeof algorithm === 'string' ? algorithm : algorithm?.name;
  return typeof name === 'string' ? name.toUpperCase() : '';
}

function bytesOf(data, what) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError(`${what} must be an ArrayBuffer or ArrayBufferView`);
}

const toArrayBuffer = (bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);

/** An AES key; `instanceof CryptoKey` holds, its members are its own. */
class AesKey {
  #algorithm;
  #extractable;
  #usages;

  constructor(name, bytes, extractable, usages) {
    this.#algorithm = Object.freeze({ name, length: bytes.length * 8 });
    this.#extractable = Boolean(extractable);
    this.#usages = Object.freeze([...usages]);
    secrets.set(this, bytes);
  }

  get type() { return 'secret'; }
  get extractable() { return this.#extractable; }
  get algorithm() { return this.#algorithm; }
  get usages() { return this.#usages; }
  get [Symbol.toStringTag]() { return 'CryptoKey'; }
}
if (globalThis.CryptoKey) Object.setPrototypeOf(AesKey.prototype, globalThis.CryptoKey.prototype);

function checkUsages(usages, allowed, name) {
  if (!Array.isArray(usages) || usages.some((usage) => !allowed.includes(usage))) {
    throw domError('SyntaxError', `${name} keys are for ${allowed.join(', ')}`);
  }
  if (usages.length === 0) throw domError('SyntaxError', 'a secret key needs at least one usage');
}

function aesKey(name, bytes, extractable, usages) {
  if (![16, 24, 32].includes(bytes.length)) {
    throw domError('DataError', `an ${name} key is 128, 192 or 256 bits (got ${bytes.length * 8})`);
  }
  checkUsages(usages, AES_USAGES, name);
  return new AesKey(name, bytes, extractable, usages);
}

const base64url = (bytes) => natives.base64Encode(bytes, true);

/** `crypto.subtle.encrypt` / `decrypt` with one of the AES keys. */
async function aes(direction, algorithm, key, data) {
  const name = algorithmName(algorithm);
  if (!(key instanceof AesKey) || key.algorithm.name !== name) {
    throw domError('InvalidAccessError', `the key is not an ${name || 'AES'} key`);
  }
  if (!key.usages.includes(direction)) throw domError('InvalidAccessError', `the key's usages do not include ${direction}`);
  const iv = bytesOf(name === 'AES-CTR' ? algorithm.counter : algorithm.iv, name === 'AES-CTR' ? 'counter' : 'iv');
  const options = {
    additionalData: algorithm.additionalData === undefined ? undefined : bytesOf(algorithm.additionalData, 'additionalData'),
    tagLength: name === 'AES-GCM' ? (algorithm.tagLength ?? 128) : undefined,
    length: name === 'AES-CTR' ? algorithm.length : undefined,
  };
  const input = bytesOf(data, 'data');
  try {
    const out = direction === 'encrypt'
      ? natives.aesEncrypt(name, secrets.get(key), iv, input, options)
      : natives.aesDecrypt(name, secrets.get(key), iv, input, options);
    return toArrayBuffer(out);
  } catch (error) {
    throw domError('OperationError', error.message);
  }
}

function install() {
  const { importKey } = proto;
  const engineImport = (...args) => importKey.apply(globalThis.crypto.subtle, args);

  /** An HMAC key of the engine's over `bytes`, remembered for exportKey. */
  async function hmacKey(algorithm, bytes, extractable, usages) {
    const key = await engineImport('raw', bytes, algorithm, extractable, usages);
    secrets.set(key, bytes);
    return key;
  }

  const methods = {
    encrypt(algorithm, key, data) {
      return aes('encrypt', algorithm, key, data);
    },

    decrypt(algorithm, key, data) {
      return aes('decrypt', algorithm, key, data);
    },

    async generateKey(algorithm, extractable, usages) {
      const name = algorithmName(algorithm);
      if (AES.includes(name)) {
        if (![128, 192, 256].includes(algorithm.length)) throw domError('OperationError', 'AES key length must be 128, 192 or 256 bits');
        return aesKey(name, natives.randomBytes(algorithm.length / 8), extractable, usages);
      }
      if (name === 'HMAC') {
        const hash = algorithmName(algorithm.hash);
        const bits = algorithm.length ?? HMAC_BITS[hash];
        if (!bits) throw domError('NotSupportedError', `HMAC with ${hash || 'no hash'} is not supported`);
        checkUsages(usages, HMAC_USAGES, 'HMAC');
        return hmacKey(algorithm, natives.randomBytes(Math.ceil(bits / 8)), extractable, usages);
      }
      throw domError('NotSupportedError', `generateKey: ${name || 'the algorithm'} is not supported in the bench sandbox (AES-GCM, AES-CBC, AES-CTR and HMAC are)`);
    },

    async importKey(format, keyData, algorithm, extractable, usages) {
      const name = algorithmName(algorithm);
      if (AES.includes(name)) {
        if (format === 'raw') return aesKey(name, bytesOf(keyData, 'keyData').slice(), extractable, usages);
        if (format === 'jwk' && keyData?.kty === 'oct' && typeof keyData.k === 'string') {
          return aesKey(name, natives.base64Decode(keyData.k), extractable, usages);
        }
        throw domError('NotSupportedError', `importKey: ${name} keys come as raw bytes or an oct JWK`);
      }
      if (name === 'HMAC' && format === 'raw') return hmacKey(algorithm, bytesOf(keyData, 'keyData').slice(), extractable, usages);
      const key = await engineImport(format, keyData, algorithm, extractable, usages);
      if (name === 'HMAC' && format === 'jwk' && typeof keyData?.k === 'string') secrets.set(key, natives.base64Decode(keyData.k));
      return key;
    },

    async exportKey(format, key) {
      const bytes = secrets.get(key);
      if (!bytes) throw domError('NotSupportedError', 'exportKey: only AES and HMAC keys made or imported by bench can be exported');
      if (!key.extractable) throw domError('InvalidAccessError', 'the key is not extractable');
      if (format === 'raw') return toArrayBuffer(bytes);
      if (format !== 'jwk') throw domError('NotSupportedError', `exportKey: a secret key exports as raw or jwk, not ${String(format)}`);
      const name = key.algorithm.name;
      const alg = name === 'HMAC'
        ? `HS${String(key.algorithm.hash?.name ?? key.algorithm.hash).replace('SHA-', '')}`
        : `A${bytes.length * 8}${name.slice(4)}`;
      return { kty: 'oct', k: base64url(bytes), alg, ext: true, key_ops: [...key.usages] };
    },
  };
  for (const [name, method] of Object.entries(methods)) {
    Object.defineProperty(proto, name, { value: method, writable: true, configurable: true });
  }
}

if (proto && typeof proto.importKey === 'function') install();
