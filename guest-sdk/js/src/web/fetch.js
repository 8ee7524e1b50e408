// `fetch` takes each response's headers as soon as the response arrives. The engine then
// holds the response's wasi:http handles only as long as they are in use: bench's build adds
// a handle janitor to the engine that drops a response once its body has been read and its
// headers taken, and the headers (with an unread body) when the garbage collector finalizes
// them. Without this, a response whose headers are never read keeps its handles for the
// life of the instance, and a sandbox that fetches in every task runs out of them.

const engineFetch = globalThis.fetch;

if (typeof engineFetch === 'function') {
  globalThis.fetch = function fetch(input, init) {
    return engineFetch(input, init).then(takeHeaders);
  };
}

function takeHeaders(response) {
  void response.headers;
  return response;
}
