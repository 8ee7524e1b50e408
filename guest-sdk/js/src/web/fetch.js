// `fetch` takes each response's headers as soon as the response arrives. The engine then
// holds the response's wasi:http handles only as long as they are in use: bench's build adds
// a handle janitor to the engine that drops a response once its body has been read and its
// headers taken, and the headers (with an unread body) when the garbage collector finalizes
// them. Without this, a response whose headers are never read keeps its handles for the
// life of the instance, and a sandbox that fetches in every task runs out of them.
//
// A failed request keeps its `TypeError` (the record's errorCode) with bench's reason added:
// the engine rejects a request the host denied, or one whose connection failed, with a bare
// "NetworkError when attempting to fetch resource".

const REASON =
  'bench: the request was denied or its connection failed; bench sends only to the hosts ' +
  "the benchmark config's allowedHosts or --allow-host allow, and lists each denied request " +
  'in the participant log';

const engineFetch = globalThis.fetch;

if (typeof engineFetch === 'function') {
  globalThis.fetch = function fetch(input, init) {
    return engineFetch(input, init).then(takeHeaders, (error) => withReason(error, input));
  };
}

function takeHeaders(response) {
  void response.headers;
  return response;
}

function withReason(error, input) {
  if (!(error instanceof TypeError)) throw error;
  const url = typeof input === 'object' && input !== null && 'url' in input ? input.url : String(input);
  throw new TypeError(`fetch ${url} failed: ${error.message} (${REASON})`, { cause: error });
}
