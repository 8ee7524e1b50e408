// The npm `ws` package's client as a task gets it (bench's build resolves `ws` here, for the
// task and every package it imports, `isomorphic-ws` included): the `WebSocket` global
// (the host's connections, under the participant's outbound rules) behind `ws`'s API —
// an EventEmitter with `open`, `message` (data as a Buffer, isBinary), `close` (code,
// reason as a Buffer) and `error`, `send(data, options, callback)`, `close`, `terminate`,
// and the WHATWG `on*` / `addEventListener` too. The host answers the server's pings; a
// task's own `ping`/`pong` send nothing. `WebSocketServer` and `createWebSocketStream` are
// importable but fail when called: a task cannot listen.

'use strict';

const EventEmitter = require('events');
const { Buffer } = require('buffer');

const STATES = { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 };

class WebSocket extends EventEmitter {
  constructor(address, protocols, options) {
    super();
    if (protocols && typeof protocols === 'object' && !Array.isArray(protocols)) {
      options = protocols;
      protocols = undefined;
    }
    const socket = new globalThis.WebSocket(String(address), protocols ?? [], { headers: options?.headers });
    socket.binaryType = 'arraybuffer';
    this._socket = socket;
    this.binaryType = 'nodebuffer';
    socket.addEventListener('open', () => this.emit('open'));
    socket.addEventListener('message', (event) => {
      const binary = typeof event.data !== 'string';
      this.emit('message', Buffer.from(event.data), binary);
    });
    socket.addEventListener('error', (event) => this.emit('error', event.error ?? new Error(event.message)));
    socket.addEventListener('close', (event) => this.emit('close', event.code, Buffer.from(event.reason)));
  }

  get readyState() { return this._socket.readyState; }
  get protocol() { return this._socket.protocol; }
  get url() { return this._socket.url; }
  get bufferedAmount() { return this._socket.bufferedAmount; }
  get extensions() { return ''; }

  send(data, options, callback) {
    if (typeof options === 'function') {
      callback = options;
      options = undefined;
    }
    try {
      const text = options?.binary === false || (options?.binary === undefined && typeof data === 'string');
      this._socket.send(text ? String(data) : typeof data === 'string' ? Buffer.from(data) : data);
    } catch (error) {
      if (!callback) throw error;
      callback(error);
      return;
    }
    callback?.();
  }

  close(code, reason) {
    this._socket.close(code, reason === undefined ? undefined : String(reason));
  }

  terminate() {
    this._socket.close();
  }

  ping(_data, _mask, callback) {
    if (typeof _data === 'function') callback = _data;
    callback?.();
  }

  pong(_data, _mask, callback) {
    if (typeof _data === 'function') callback = _data;
    callback?.();
  }

  addEventListener(type, listener, options) {
    this._socket.addEventListener(type, listener, options);
  }

  removeEventListener(type, listener, options) {
    this._socket.removeEventListener(type, listener, options);
  }
}

for (const name of ['onopen', 'onmessage', 'onerror', 'onclose']) {
  Object.defineProperty(WebSocket.prototype, name, {
    get() { return this._socket[name]; },
    set(handler) { this._socket[name] = handler; },
  });
}

for (const [name, value] of Object.entries(STATES)) {
  WebSocket[name] = value;
  Object.defineProperty(WebSocket.prototype, name, { value });
}

function unavailable(what) {
  return function () {
    throw new Error(`ws: ${what} is not available in the bench sandbox (a task cannot listen)`);
  };
}

WebSocket.WebSocket = WebSocket;
WebSocket.WebSocketServer = WebSocket.Server = unavailable('WebSocketServer');
WebSocket.createWebSocketStream = unavailable('createWebSocketStream');

module.exports = WebSocket;
