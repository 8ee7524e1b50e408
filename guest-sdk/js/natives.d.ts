// Types of @bench/task/natives: primitives the bench host computes at native speed.

/** Bytes: a Uint8Array, an ArrayBuffer or any other ArrayBufferView. */
export type Bytes = Uint8Array | ArrayBuffer | ArrayBufferView;

export type HashAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512' | (string & {});
export type CompressionFormat = 'gzip' | 'deflate' | 'deflate-raw';
export type AesMode = 'AES-GCM' | 'AES-CBC' | 'AES-CTR';

/** An incremental hash or HMAC. */
export interface NativeHash {
  update(data: Bytes): NativeHash;
  digest(): Uint8Array;
  copy(): NativeHash;
}

/** An incremental (de)compression stream. */
export interface NativeStream {
  push(data: Bytes): Uint8Array;
  flush(): Uint8Array;
  finish(): Uint8Array;
  close(): void;
}

export interface AesOptions {
  /** AES-GCM: data authenticated but not encrypted. */
  additionalData?: Bytes;
  /** AES-GCM: tag length in bits (96–128 in steps of 8; default 128). */
  tagLength?: number;
  /** AES-CTR: counter bits of the counter block (1–128; default 128). */
  length?: number;
}

export function createHash(algorithm: HashAlgorithm): NativeHash;
export function createHmac(algorithm: HashAlgorithm, key: Bytes): NativeHash;
export function crc32(data: Bytes, previous?: number): number;
export function crc32c(data: Bytes, previous?: number): number;
export function randomBytes(n: number): Uint8Array;
export function base64Encode(data: Bytes, urlSafe?: boolean): string;
export function base64Decode(text: string): Uint8Array;
export function hexEncode(data: Bytes): string;
export function hexDecode(text: string): Uint8Array;
export function compress(format: CompressionFormat, data: Bytes, level?: number): Uint8Array;
export function decompress(format: CompressionFormat, data: Bytes): Uint8Array;
export function createCompressor(format: CompressionFormat, level?: number): NativeStream;
export function createDecompressor(format: CompressionFormat): NativeStream;
export function aesEncrypt(mode: AesMode, key: Bytes, iv: Bytes, data: Bytes, options?: AesOptions): Uint8Array;
export function aesDecrypt(mode: AesMode, key: Bytes, iv: Bytes, data: Bytes, options?: AesOptions): Uint8Array;
