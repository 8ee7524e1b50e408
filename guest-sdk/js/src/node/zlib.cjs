// node:zlib: the module imports (its constants too); compression and checksums throw when
// called.

'use strict';

const { unavailableModule } = require('./internal/unavailable.cjs');

const FORMATS = ['Deflate', 'DeflateRaw', 'Gzip', 'Gunzip', 'Inflate', 'InflateRaw', 'Unzip', 'BrotliCompress', 'BrotliDecompress'];
const names = [];
for (const format of FORMATS) {
  const method = format[0].toLowerCase() + format.slice(1);
  names.push(format, `create${format}`, method, `${method}Sync`);
}

module.exports = unavailableModule('zlib', names, {
  constants: {
    Z_NO_FLUSH: 0, Z_PARTIAL_FLUSH: 1, Z_SYNC_FLUSH: 2, Z_FULL_FLUSH: 3, Z_FINISH: 4, Z_BLOCK: 5,
    Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3,
    Z_MEM_ERROR: -4, Z_BUF_ERROR: -5, Z_VERSION_ERROR: -6, Z_NO_COMPRESSION: 0, Z_BEST_SPEED: 1,
    Z_BEST_COMPRESSION: 9, Z_DEFAULT_COMPRESSION: -1, Z_FILTERED: 1, Z_HUFFMAN_ONLY: 2, Z_RLE: 3,
    Z_FIXED: 4, Z_DEFAULT_STRATEGY: 0, ZLIB_VERNUM: 4865, DEFLATE: 1, INFLATE: 2, GZIP: 3,
    GUNZIP: 4, DEFLATERAW: 5, INFLATERAW: 6, UNZIP: 7, Z_MIN_WINDOWBITS: 8, Z_MAX_WINDOWBITS: 15,
    Z_DEFAULT_WINDOWBITS: 15, Z_MIN_CHUNK: 64, Z_MAX_CHUNK: Infinity, Z_DEFAULT_CHUNK: 16384,
    Z_MIN_MEMLEVEL: 1, Z_MAX_MEMLEVEL: 9, Z_DEFAULT_MEMLEVEL: 8, Z_MIN_LEVEL: -1, Z_MAX_LEVEL: 9,
    Z_DEFAULT_LEVEL: -1,
  },
});
