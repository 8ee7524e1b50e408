// Test task: computes known vectors through @bench/task/natives (hashes, HMAC, CRCs, base64,
// hex, gzip, AES-GCM) and reports them; with `--hostile <attack>` its first task asks for an
// oversized decompression (`decompress`) or creates hashers without end (`hashers`); with
// `--digest-mib <n>` it instead times steps `sha256` and `crc32` over n MiB
// (scripts/bench-natives.sh).
import { defineBenchmarkConfig, defineTask } from '@bench/task';
import * as natives from '@bench/task/natives';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'guest-js-natives',
  benchmarkName: 'JS natives',
  participants: [{ name: 'p', requiredEnvVars: [] }],
  iterations: 2,
  customCliFlags: ['--hostile', '--digest-mib'],
});

const text = (value) => new TextEncoder().encode(value);
const hex = (bytes) => natives.hexEncode(bytes);

function thrown(fn) {
  try {
    fn();
    return null;
  } catch (error) {
    return { name: error.name, reason: error.reason, message: error.message };
  }
}

function vectors() {
  const abc = (algorithm) => hex(natives.createHash(algorithm).update(text('abc')).digest());
  const million = natives.createHash('sha256');
  const chunk = new Uint8Array(100_000).fill(0x61);
  for (let i = 0; i < 10; i++) million.update(chunk);
  const hmac = natives.createHmac('sha256', text('Jefe')).update(text('what do ya '));
  const copy = hmac.copy();
  hmac.update(text('want for nothing?'));
  const digits = text('__123456789__');
  const view = digits.subarray(2, 11);
  const body = text('natives '.repeat(1000));
  const gzip = natives.compress('gzip', body, 9);
  const stream = natives.createCompressor('deflate-raw');
  const streamed = [stream.push(body.subarray(0, 3000)), stream.push(body.subarray(3000)), stream.finish()];
  const joined = new Uint8Array(streamed.reduce((n, part) => n + part.length, 0));
  streamed.reduce((at, part) => (joined.set(part, at), at + part.length), 0);
  const key = natives.hexDecode('feffe9928665731c6d6a8f9467308308');
  const iv = natives.hexDecode('cafebabefacedbaddecaf888');
  const sealed = natives.aesEncrypt('AES-GCM', key, iv, text('natives'), { tagLength: 128 });
  const opened = natives.aesDecrypt('AES-GCM', key, iv, sealed);
  sealed[0] ^= 1;
  return {
    md5: abc('md5'),
    sha1: abc('sha1'),
    sha256: abc('SHA-256'),
    sha384: abc('sha384'),
    sha512: abc('sha512'),
    sha256MillionA: hex(million.digest()),
    hmacSha256: hex(hmac.digest()),
    hmacCopy: hex(copy.digest()),
    crc32: natives.crc32(view),
    crc32Continued: natives.crc32(text('6789'), natives.crc32(text('12345'))),
    crc32c: natives.crc32c(view.buffer.slice(2, 11)),
    base64: natives.base64Encode(new Uint8Array([0xfb, 0xff, 0xbf])),
    base64Url: natives.base64Encode(new Uint8Array([0xfb, 0xff, 0xbf]), true),
    base64Decoded: hex(natives.base64Decode('+/+/')),
    gzipMagic: hex(gzip.subarray(0, 2)),
    gunzipped: new TextDecoder().decode(natives.decompress('gzip', gzip)) === 'natives '.repeat(1000),
    inflated: natives.decompress('deflate-raw', joined).length,
    aesGcmRoundTrip: new TextDecoder().decode(opened),
    randomLength: natives.randomBytes(16).length,
    errors: {
      hex: thrown(() => natives.hexDecode('zz')),
      algorithm: thrown(() => natives.createHash('whirlpool')),
      key: thrown(() => natives.aesEncrypt('AES-CBC', new Uint8Array(3), new Uint8Array(16), text('x'))),
      tampered: thrown(() => natives.aesDecrypt('AES-GCM', key, iv, sealed)),
    },
  };
}

/** 65 MiB of zeros compressed to about 65 KiB, then decompressed in one call. */
function decompressBomb() {
  const compressor = natives.createCompressor('gzip', 9);
  const zeros = new Uint8Array(1 << 20);
  const parts = [];
  for (let i = 0; i < 65; i++) parts.push(compressor.push(zeros));
  parts.push(compressor.finish());
  const bomb = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  parts.reduce((at, part) => (bomb.set(part, at), at + part.length), 0);
  natives.decompress('gzip', bomb);
}

/** Hashers fed past the size that waits in JavaScript, kept alive until the host refuses one. */
function hashersWithoutEnd() {
  const hoard = [];
  const block = new Uint8Array(64 * 1024 + 1);
  for (;;) hoard.push(natives.createHash('sha512').update(block));
}

/** The payload of `--digest-mib`, made once per instance (outside the timed steps). */
let payload = null;

async function digestSteps(ctx, mib) {
  if (payload === null || payload.length !== mib << 20) {
    payload = new Uint8Array(mib << 20);
    for (let i = 0; i < payload.length; i += 4096) payload[i] = i >>> 12;
  }
  const sha256 = await ctx.step('sha256', () => hex(natives.createHash('sha256').update(payload).digest()));
  const crc32 = await ctx.step('crc32', () => natives.crc32(payload));
  return { data: { sha256, crc32 } };
}

export const task = defineTask((ctx) => {
  const mib = Number(ctx.arg('--digest-mib') ?? 0);
  if (mib > 0) return digestSteps(ctx, mib);
  if (ctx.taskIndex === 0) {
    const hostile = ctx.arg('--hostile');
    if (hostile === 'decompress') decompressBomb();
    if (hostile === 'hashers') hashersWithoutEnd();
  }
  return { data: vectors() };
});
