// What the engine's web streams lack and packages use: async iteration of a ReadableStream
// (`for await (const chunk of response.body)`, and `values({ preventCancel })`), as the
// Streams standard defines it. Installed once, when the component is initialised.

const proto = globalThis.ReadableStream?.prototype;

/** An async iterator over the stream's chunks; leaving the loop early cancels the stream. */
function values({ preventCancel = false } = {}) {
  const reader = this.getReader();
  return {
    async next() {
      try {
        const result = await reader.read();
        if (result.done) reader.releaseLock();
        return result;
      } catch (error) {
        reader.releaseLock();
        throw error;
      }
    },
    async return(value) {
      if (!preventCancel) {
        const cancelled = reader.cancel(value);
        reader.releaseLock();
        await cancelled;
      } else {
        reader.releaseLock();
      }
      return { value, done: true };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

if (proto && typeof proto[Symbol.asyncIterator] !== 'function') {
  Object.defineProperty(proto, 'values', { value: values, writable: true, configurable: true });
  Object.defineProperty(proto, Symbol.asyncIterator, { value: values, writable: true, configurable: true });
}
