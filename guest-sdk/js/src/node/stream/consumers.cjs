// node:stream/consumers: a whole stream (Node Readable, web ReadableStream or any async
// iterable of chunks) as an ArrayBuffer, Blob, Buffer, text or JSON.

'use strict';

const { Buffer } = require('../buffer.cjs');

async function buffer(stream) {
  const chunks = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks);
}

async function arrayBuffer(stream) {
  const bytes = await buffer(stream);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

async function blob(stream) {
  return new Blob([await buffer(stream)]);
}

async function text(stream) {
  return (await buffer(stream)).toString('utf8');
}

async function json(stream) {
  return JSON.parse(await text(stream));
}

module.exports = { arrayBuffer, blob, buffer, json, text };
