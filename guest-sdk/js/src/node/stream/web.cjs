// node:stream/web: the engine's web streams (the same classes as the globals).

'use strict';

const names = [
  'ReadableStream', 'ReadableStreamDefaultReader', 'ReadableStreamBYOBReader',
  'ReadableStreamBYOBRequest', 'ReadableByteStreamController', 'ReadableStreamDefaultController',
  'TransformStream', 'TransformStreamDefaultController', 'WritableStream',
  'WritableStreamDefaultWriter', 'WritableStreamDefaultController', 'ByteLengthQueuingStrategy',
  'CountQueuingStrategy', 'TextEncoderStream', 'TextDecoderStream', 'CompressionStream',
  'DecompressionStream',
];

module.exports = Object.fromEntries(names.map((name) => [name, globalThis[name]]));
