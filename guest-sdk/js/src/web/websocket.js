// The `WebSocket` global (the WHATWG WebSocket API) over the host's connections
// (`bench:task/websocket`): the participant's outbound rules apply (a ws:// URL is judged as
// http://, wss:// as https://), and the host bounds messages (16 MiB either way), queued
// bytes (16 MiB each way) and connections (64 per sandbox); a connection still open when the
// task ends is closed by the host.
//
// Events are delivered from a pump on the event loop: while a socket is open, a timer turn
// delivers the next event the host has received (the sockets take turns); when nothing has
// arrived it waits in the host (`wait`, returning as soon as a message arrives) for at most
// WAIT_MS, so an idle socket costs a few wake-ups per second of CPU-free waiting and a
// message no added latency. One event a turn, as the WHATWG API queues a task per event: the
// promise jobs an event starts run before the next one is delivered, so a task that awaits
// `open` and then listens for `message` or `error` sees what arrived meanwhile. Other
// event-loop work (fetch, timers) runs between turns: while a socket is open and idle it may
// start up to WAIT_MS late.

import * as host from 'bench:task/websocket@0.1.4';

/** The longest host wait of one pump turn when nothing has arrived. */
const WAIT_MS = 4;

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** Sockets the pump serves (connecting, open or closing). */
const live = new Set();
let pumping = false;

function schedule() {
  if (!pumping && live.size > 0) {
    pumping = true;
    setTimeout(pump, 0);
  }
}

/** One turn: deliver one event; wait in the host briefly when nothing has arrived. */
function pump() {
  pumping = false;
  if (!deliverOne() && live.size > 0) {
    host.wait([...live].map((socket) => socket._connection), WAIT_MS);
    deliverOne();
  }
  schedule();
}

/** Delivers the next event of the first socket that has one; whether there was one. */
function deliverOne() {
  for (const socket of [...live]) {
    if (socket._deliverNext()) {
      // The next turn starts with the other sockets.
      if (live.delete(socket)) live.add(socket);
      return true;
    }
  }
  return false;
}

function domException(message, name) {
  return typeof DOMException === 'function' ? new DOMException(message, name) : new Error(message);
}

/** The `message` event. */
class MessageEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.data = init.data;
    this.origin = init.origin ?? '';
    this.lastEventId = '';
    this.source = null;
    this.ports = [];
  }
}

/** The `close` event. */
class CloseEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.code = init.code ?? 0;
    this.reason = init.reason ?? '';
    this.wasClean = init.wasClean ?? false;
  }
}

/** The `error` event; `message` carries the host's reason (bench's, for a denial). */
class ErrorEvent extends Event {
  constructor(type, init = {}) {
    super(type);
    this.message = init.message ?? '';
    this.error = init.error;
  }
}

const encoder = new TextEncoder();

function bytesOf(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

/** The URL the WHATWG constructor accepts: http(s) becomes ws(s); no fragment. */
function socketUrl(url) {
  let parsed;
  try {
    parsed = new URL(String(url));
  } catch {
    throw domException(`Failed to construct 'WebSocket': the URL '${url}' is invalid.`, 'SyntaxError');
  }
  if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
  else if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') {
    throw domException(`Failed to construct 'WebSocket': the URL's scheme must be 'ws' or 'wss', not '${parsed.protocol.slice(0, -1)}'.`, 'SyntaxError');
  }
  if (parsed.hash) {
    throw domException("Failed to construct 'WebSocket': the URL contains a fragment identifier.", 'SyntaxError');
  }
  return parsed.href;
}

/** A WebSocket connection (WHATWG API); `options.headers` adds request headers. */
export class WebSocket extends EventTarget {
  static CONNECTING = CONNECTING;
  static OPEN = OPEN;
  static CLOSING = CLOSING;
  static CLOSED = CLOSED;

  constructor(url, protocols = [], options = undefined) {
    super();
    this.url = socketUrl(url);
    const offered = typeof protocols === 'string' ? [protocols] : [...(protocols ?? [])].map(String);
    if (new Set(offered).size !== offered.length) {
      throw domException("Failed to construct 'WebSocket': the subprotocols contain duplicates.", 'SyntaxError');
    }
    const headers = Object.entries(options?.headers ?? {}).map(([name, value]) => [name, String(value)]);
    this.readyState = CONNECTING;
    this.protocol = '';
    this.extensions = '';
    this.binaryType = 'blob';
    this.onopen = null;
    this.onmessage = null;
    this.onerror = null;
    this.onclose = null;
    this._origin = new URL(this.url).origin;
    this._closeCode = 1005;
    try {
      this._connection = host.Connection.connect(this.url, offered, headers);
    } catch (error) {
      const payload = error?.payload;
      if (payload?.tag === 'invalid-argument') {
        throw domException(`Failed to construct 'WebSocket': ${payload.val}`, 'SyntaxError');
      }
      if (!payload) throw error;
      // Past the host's bounds: the connection fails as the event loop turns.
      this._connection = null;
      setTimeout(() => this._fail(payload.val), 0);
      return;
    }
    live.add(this);
    schedule();
  }

  get CONNECTING() { return CONNECTING; }
  get OPEN() { return OPEN; }
  get CLOSING() { return CLOSING; }
  get CLOSED() { return CLOSED; }

  /** Bytes sent and not yet written to the connection. */
  get bufferedAmount() {
    return this._connection && this.readyState !== CLOSED ? Number(this._connection.bufferedAmount()) : 0;
  }

  send(data) {
    if (this.readyState === CONNECTING) {
      throw domException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError');
    }
    if (this.readyState !== OPEN) return;
    const bytes = typeof data === 'string' ? null : bytesOf(data);
    try {
      if (bytes) this._connection.sendBinary(bytes);
      else if (typeof Blob === 'function' && data instanceof Blob) {
        throw new TypeError('WebSocket.send of a Blob is not supported in the bench sandbox: send its arrayBuffer()');
      } else this._connection.sendText(String(data));
    } catch (error) {
      const payload = error?.payload;
      if (!payload) throw error;
      if (payload.tag === 'limit') throw new RangeError(`WebSocket.send: ${payload.val}`);
      if (payload.tag !== 'closed') throw new Error(`WebSocket.send: ${payload.val}`);
    }
  }

  close(code = undefined, reason = undefined) {
    if (code !== undefined && code !== 1000 && !(code >= 3000 && code <= 4999)) {
      throw domException(`Failed to execute 'close' on 'WebSocket': The code must be either 1000, or between 3000 and 4999. ${code} is neither.`, 'InvalidAccessError');
    }
    const text = reason === undefined ? '' : String(reason);
    if (encoder.encode(text).length > 123) {
      throw domException("Failed to execute 'close' on 'WebSocket': The close reason must not be greater than 123 UTF-8 bytes.", 'SyntaxError');
    }
    if (this.readyState === CLOSING || this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    if (this._connection) this._connection.close(code, text);
  }

  /** Delivers the host's next event (or error) for this socket; whether there was one. */
  _deliverNext() {
    let event;
    try {
      event = this._connection.receive();
    } catch (error) {
      const payload = error?.payload;
      this._fail(payload ? payload.val : String(error), payload?.tag === 'closed');
      return true;
    }
    if (event === undefined) return false;
    this._deliver(event);
    return true;
  }

  _deliver(event) {
    switch (event.tag) {
      case 'open':
        this.protocol = event.val;
        if (this.readyState === CONNECTING) this.readyState = OPEN;
        this._emit(new Event('open'));
        break;
      case 'text':
        this._emit(new MessageEvent('message', { data: event.val, origin: this._origin }));
        break;
      case 'binary': {
        const bytes = event.val;
        const data = this.binaryType === 'blob' && typeof Blob === 'function'
          ? new Blob([bytes])
          : bytes.buffer.byteLength === bytes.byteLength ? bytes.buffer : bytes.slice().buffer;
        this._emit(new MessageEvent('message', { data, origin: this._origin }));
        break;
      }
      case 'closed':
        this._finish(event.val.code, event.val.reason, true);
        break;
    }
  }

  /** The connection failed (or could not open): `error`, then `close` with 1006. */
  _fail(message, quietly = false) {
    if (this.readyState === CLOSED) return;
    if (!quietly) this._emit(new ErrorEvent('error', { message, error: new Error(message) }));
    this._finish(1006, '', false);
  }

  _finish(code, reason, wasClean) {
    live.delete(this);
    this.readyState = CLOSED;
    this._closeCode = code;
    const connection = this._connection;
    this._connection = null;
    connection?.[Symbol.dispose]?.();
    this._emit(new CloseEvent('close', { code, reason, wasClean }));
  }

  _emit(event) {
    const handler = this[`on${event.type}`];
    if (typeof handler === 'function') {
      try {
        handler.call(this, event);
      } catch (error) {
        reportError(error);
      }
    }
    this.dispatchEvent(event);
  }
}

function reportError(error) {
  console.error(error?.stack ?? String(error));
}

globalThis.WebSocket = WebSocket;
globalThis.MessageEvent ??= MessageEvent;
globalThis.CloseEvent ??= CloseEvent;
