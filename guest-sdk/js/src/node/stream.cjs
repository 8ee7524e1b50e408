// node:stream: Node's streams from `readable-stream` (Node's own stream code as a package),
// with the web-stream adapters it leaves out (Readable/Writable.fromWeb and toWeb) built on
// the engine's ReadableStream and WritableStream. `require('stream')` is the legacy Stream
// class carrying Readable, Writable, Duplex, Transform, PassThrough, pipeline, finished…

'use strict';

const Stream = require('../vendor/stream.cjs');

const { Readable, Writable } = Stream;

/** A Readable that yields the chunks of a web ReadableStream. */
Readable.fromWeb = function fromWeb(readableStream, options = {}) {
  const reader = readableStream.getReader();
  return new Readable({
    objectMode: options.objectMode ?? false,
    highWaterMark: options.highWaterMark,
    encoding: options.encoding,
    signal: options.signal,
    read() {
      reader.read().then(
        ({ value, done }) => this.push(done ? null : value),
        (error) => this.destroy(error),
      );
    },
    destroy(error, callback) {
      reader.cancel(error ?? undefined).then(() => callback(error), () => callback(error));
    },
  });
};

/** A web ReadableStream of a Readable's chunks (as Uint8Array unless in object mode). */
Readable.toWeb = function toWeb(readable) {
  const iterator = readable[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === 'string' ? new TextEncoder().encode(value) : value);
    },
    cancel(reason) {
      readable.destroy(reason);
    },
  });
};

/** A Writable that writes into a web WritableStream. */
Writable.fromWeb = function fromWeb(writableStream, options = {}) {
  const writer = writableStream.getWriter();
  return new Writable({
    objectMode: options.objectMode ?? false,
    highWaterMark: options.highWaterMark,
    decodeStrings: options.decodeStrings ?? true,
    signal: options.signal,
    write(chunk, _encoding, callback) {
      writer.write(chunk).then(() => callback(), callback);
    },
    final(callback) {
      writer.close().then(() => callback(), callback);
    },
    destroy(error, callback) {
      writer.abort(error ?? undefined).then(() => callback(error), () => callback(error));
    },
  });
};

/** A web WritableStream writing into a Writable. */
Writable.toWeb = function toWeb(writable) {
  return new WritableStream({
    write(chunk) {
      return new Promise((resolve, reject) => {
        writable.write(chunk, (error) => (error ? reject(error) : resolve()));
      });
    },
    close() {
      return new Promise((resolve) => writable.end(resolve));
    },
    abort(reason) {
      writable.destroy(reason);
    },
  });
};

module.exports = Stream;
