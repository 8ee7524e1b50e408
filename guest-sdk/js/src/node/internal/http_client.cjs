// The client side of node:http and node:https over the sandbox's `fetch` (so the same
// allowlist and limits apply): a ClientRequest is a Writable that collects the body and
// sends one fetch when it ends; the answer is an IncomingMessage, a Readable of the
// response body. Modelled on workerd's fetch-based node:http client. There is no socket:
// 'socket' gets a stand-in that is already connected, `Expect: 100-continue` gets its
// 'continue' at once, and redirects and content encodings are left to the caller, as Node's
// client does.

'use strict';

const EventEmitter = require('../events.cjs');
const { Readable, Writable } = require('../stream.cjs');
const { Buffer } = require('../buffer.cjs');

/** Headers fetch sets itself or refuses (the body's length is the collected body's). */
const FETCH_MANAGED_HEADERS = new Set(['host', 'connection', 'content-length', 'expect', 'keep-alive', 'transfer-encoding', 'upgrade']);

class Agent extends EventEmitter {
  constructor(options = {}) {
    super();
    this.options = { ...options };
    this.keepAlive = Boolean(options.keepAlive);
    this.keepAliveMsecs = options.keepAliveMsecs ?? 1000;
    this.maxSockets = options.maxSockets ?? Infinity;
    this.maxFreeSockets = options.maxFreeSockets ?? 256;
    this.maxTotalSockets = options.maxTotalSockets ?? Infinity;
    this.defaultPort = options.defaultPort ?? 80;
    this.protocol = options.protocol ?? 'http:';
    this.sockets = {};
    this.freeSockets = {};
    this.requests = {};
  }

  destroy() {}

  getName(options = {}) {
    return `${options.host || 'localhost'}:${options.port || ''}:${options.localAddress || ''}`;
  }
}

/** What a request's 'socket' listeners get: connected, with the socket methods as no-ops. */
class FetchSocket extends EventEmitter {
  constructor(encrypted) {
    super();
    this.connecting = false;
    this.encrypted = encrypted;
    this.authorized = encrypted;
    this.readable = true;
    this.writable = true;
    this.destroyed = false;
    this.remoteAddress = undefined;
    this.remotePort = undefined;
  }

  setKeepAlive() { return this; }
  setNoDelay() { return this; }
  setTimeout() { return this; }
  ref() { return this; }
  unref() { return this; }
  end() { return this; }
  destroy() { this.destroyed = true; return this; }
  address() { return {}; }
}

/** The response: status, headers and a Readable of the body. */
class IncomingMessage extends Readable {
  constructor(response, socket) {
    super();
    this.socket = socket;
    this.connection = socket;
    this.httpVersion = '1.1';
    this.httpVersionMajor = 1;
    this.httpVersionMinor = 1;
    this.statusCode = response.status;
    this.statusMessage = response.statusText;
    this.method = null;
    this.url = '';
    this.complete = false;
    this.aborted = false;
    this.trailers = {};
    this.rawTrailers = [];
    this.headers = {};
    this.headersDistinct = {};
    this.rawHeaders = [];
    for (const [name, value] of response.headers) {
      this.rawHeaders.push(name, value);
      const values = name === 'set-cookie' ? value.split(/,(?=\s*[^;,\s]+=)/).map((cookie) => cookie.trim()) : [value];
      this.headersDistinct[name] = [...(this.headersDistinct[name] ?? []), ...values];
      if (name === 'set-cookie') this.headers[name] = this.headersDistinct[name];
      else this.headers[name] = name in this.headers ? `${this.headers[name]}, ${value}` : value;
    }
    this._reader = response.body ? response.body.getReader() : null;
  }

  _read() {
    if (!this._reader) {
      this.complete = true;
      this.push(null);
      return;
    }
    this._reader.read().then(
      ({ value, done }) => {
        if (done) {
          this.complete = true;
          this.push(null);
        } else {
          this.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        }
      },
      (error) => this.destroy(error),
    );
  }

  _destroy(error, callback) {
    if (!this.complete) this.aborted = true;
    const reader = this._reader;
    this._reader = null;
    if (reader && !this.complete) reader.cancel().catch(() => {});
    callback(error);
  }

  setTimeout(msecs, callback) {
    if (callback) this.once('timeout', callback);
    return this;
  }
}

/** One request: headers until the body starts, the body as it is written, one fetch at end(). */
class ClientRequest extends Writable {
  constructor(input, options, callback, defaults) {
    // Not destroyed when the body is written: the answer is still to come.
    super({ decodeStrings: true, autoDestroy: false, emitClose: false });
    if (typeof input === 'string' || input instanceof URL) {
      const url = typeof input === 'string' ? new URL(input) : input;
      input = urlOptions(url);
    } else {
      callback = options;
      options = input;
      input = {};
    }
    if (typeof options === 'function') {
      callback = options;
      options = {};
    }
    options = { ...input, ...(options ?? {}) };

    const agent = options.agent === false || options.agent == null ? defaults.agent : options.agent;
    this.agent = agent;
    this.protocol = options.protocol || agent?.protocol || defaults.protocol;
    if (this.protocol !== defaults.protocol) {
      const error = new TypeError(`Protocol "${this.protocol}" not supported. Expected "${defaults.protocol}"`);
      error.code = 'ERR_INVALID_PROTOCOL';
      throw error;
    }
    this.method = (options.method || 'GET').toUpperCase();
    this.host = options.hostname || options.host || 'localhost';
    this.port = String(options.port || options.defaultPort || agent?.defaultPort || defaults.port);
    this.path = options.path || '/';
    if (/[^\u0021-\u00ff]/.test(this.path)) {
      const error = new TypeError('Request path contains unescaped characters');
      error.code = 'ERR_UNESCAPED_CHARACTERS';
      throw error;
    }
    this.timeout = options.timeout;
    this.aborted = false;
    this.reusedSocket = false;
    this.headersSent = false;
    this.maxHeadersCount = null;
    this._headers = new Map();
    this._body = [];
    this._abort = new AbortController();
    this._timer = null;
    this._response = null;
    this.socket = new FetchSocket(this.protocol === 'https:');
    this.connection = this.socket;

    const headers = options.headers;
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2) this.setHeader(headers[i], headers[i + 1]);
    } else if (headers) {
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) this.setHeader(name, value);
    }
    if (options.auth && !this.hasHeader('authorization')) {
      this.setHeader('Authorization', `Basic ${Buffer.from(options.auth).toString('base64')}`);
    }
    if (callback) this.once('response', callback);
    if (options.signal) {
      const signal = options.signal;
      if (signal.aborted) queueMicrotask(() => this.destroy(abortError(signal)));
      else signal.addEventListener('abort', () => this.destroy(abortError(signal)), { once: true });
    }
    if (this.timeout) this.setTimeout(this.timeout);
    queueMicrotask(() => {
      if (this.destroyed) return;
      this.emit('socket', this.socket);
      if (/^100-continue$/i.test(String(this.getHeader('expect') ?? ''))) this.emit('continue');
    });
  }

  setHeader(name, value) {
    if (this.headersSent) {
      const error = new Error('Cannot set headers after they are sent to the client');
      error.code = 'ERR_HTTP_HEADERS_SENT';
      throw error;
    }
    this._headers.set(String(name).toLowerCase(), [String(name), value]);
    return this;
  }

  getHeader(name) {
    return this._headers.get(String(name).toLowerCase())?.[1];
  }

  hasHeader(name) {
    return this._headers.has(String(name).toLowerCase());
  }

  removeHeader(name) {
    this._headers.delete(String(name).toLowerCase());
  }

  getHeaders() {
    const headers = Object.create(null);
    for (const [name, [, value]] of this._headers) headers[name] = value;
    return headers;
  }

  getHeaderNames() {
    return [...this._headers.keys()];
  }

  getRawHeaderNames() {
    return [...this._headers.values()].map(([name]) => name);
  }

  flushHeaders() {}

  setNoDelay() {}

  setSocketKeepAlive() {}

  /** Emits 'timeout' when no answer (or no body chunk) came for `msecs`. */
  setTimeout(msecs, callback) {
    if (callback) this.once('timeout', callback);
    globalThis.clearTimeout(this._timer);
    this.timeout = msecs;
    this._timer = msecs > 0 ? globalThis.setTimeout(() => this._timedOut(), msecs) : null;
    return this;
  }

  _timedOut() {
    this._timer = null;
    this.emit('timeout');
    this._response?.emit('timeout');
  }

  _refreshTimer() {
    if (this._timer !== null) this.setTimeout(this.timeout);
  }

  abort() {
    if (this.aborted) return;
    this.aborted = true;
    queueMicrotask(() => this.emit('abort'));
    this.destroy();
  }

  _write(chunk, _encoding, callback) {
    this._body.push(chunk);
    callback();
  }

  _final(callback) {
    this.headersSent = true;
    const headers = new Headers();
    for (const [name, [, value]] of this._headers) {
      if (FETCH_MANAGED_HEADERS.has(name)) continue;
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, String(item));
    }
    const body = this._body.length === 1 ? this._body[0] : Buffer.concat(this._body);
    this._body = [];
    const hasBody = body.byteLength > 0 || !['GET', 'HEAD'].includes(this.method);
    const url = `${this.protocol}//${formatHost(this.host)}:${this.port}${this.path}`;
    fetch(url, {
      method: this.method,
      headers,
      body: hasBody && !['GET', 'HEAD'].includes(this.method) ? body : undefined,
      redirect: 'manual',
      signal: this._abort.signal,
    }).then(
      (response) => this._answered(response),
      (error) => this._failed(error),
    );
    callback();
  }

  _answered(response) {
    if (this.destroyed) {
      response.body?.cancel().catch(() => {});
      return;
    }
    this._refreshTimer();
    const incoming = new IncomingMessage(response, this.socket);
    this._response = incoming;
    incoming.req = this;
    incoming.on('data', () => this._refreshTimer());
    incoming.on('end', () => {
      globalThis.clearTimeout(this._timer);
      this._timer = null;
      queueMicrotask(() => this.emit('close'));
    });
    incoming.on('error', () => globalThis.clearTimeout(this._timer));
    if (this.listenerCount('response') === 0) {
      incoming.resume();
      return;
    }
    this.emit('response', incoming);
  }

  _failed(error) {
    globalThis.clearTimeout(this._timer);
    if (this.destroyed) return;
    const failure = error instanceof Error ? error : new Error(String(error));
    failure.code ??= 'ECONNREFUSED';
    this.destroy(failure);
  }

  _destroy(error, callback) {
    globalThis.clearTimeout(this._timer);
    this._timer = null;
    this._abort.abort();
    if (this._response && !this._response.complete) this._response.destroy(error ?? undefined);
    callback(error);
  }
}

function abortError(signal) {
  const error = new Error('The operation was aborted', { cause: signal?.reason });
  error.name = 'AbortError';
  error.code = 'ABORT_ERR';
  return error;
}

/** The host part of a URL: an IPv6 address in brackets. */
function formatHost(host) {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function urlOptions(url) {
  const options = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    path: `${url.pathname}${url.search}`,
  };
  if (url.port) options.port = Number(url.port);
  if (url.username || url.password) {
    options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  }
  return options;
}

/** `request` and `get` of one protocol (http or https). */
function client(defaults) {
  const request = (input, options, callback) => new ClientRequest(input, options, callback, defaults);
  const get = (input, options, callback) => {
    const req = request(input, options, callback);
    req.end();
    return req;
  };
  return { request, get };
}

module.exports = { Agent, ClientRequest, IncomingMessage, client };
