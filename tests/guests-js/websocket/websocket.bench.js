// Test task: the `WebSocket` global against the server `--ws-url` names. `--ws-mode echo`
// (the default) sends a text and a binary message, reports the echoes and the close;
// `leave` reads one echo and returns with the socket open (the host closes it); `ws-package`
// does the echo through the npm `isomorphic-ws` (and so `ws`) package unchanged; `receive`
// is busy for 300 ms after opening (so the events arrive before the first is delivered), then
// reports the first message or the error event; `--ws-count <n>` times n text round trips
// in a step `round-trips` and reports their median in microseconds, `p50Us`
// (scripts/bench-websocket.sh).
import { defineBenchmarkConfig, defineTask } from '@bench/task';
import IsomorphicWebSocket from 'isomorphic-ws';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'guest-js-websocket',
  benchmarkName: 'JS WebSocket',
  participants: [{ name: 'p', requiredEnvVars: [] }],
  iterations: 1,
  customCliFlags: ['--ws-url', '--ws-mode', '--ws-count'],
});

/** Resolves with the socket's next event of `types` (a message's data, a close, an error). */
function next(socket, ...types) {
  return new Promise((resolve) => {
    const handlers = types.map((type) => [type, (event) => {
      for (const [name, handler] of handlers) socket.removeEventListener(name, handler);
      resolve(event);
    }]);
    for (const [name, handler] of handlers) socket.addEventListener(name, handler);
  });
}

function describe(event) {
  if (event.type === 'error') return { error: event.message };
  if (event.type === 'close') return { code: event.code, reason: event.reason, wasClean: event.wasClean };
  if (typeof event.data === 'string') return { text: event.data };
  return { binary: [...new Uint8Array(event.data)] };
}

/** The echo through the npm `ws` API (an EventEmitter), as `isomorphic-ws` exports it. */
async function throughWsPackage(url) {
  const socket = new IsomorphicWebSocket(url);
  const once = (name) => new Promise((resolve) => socket.once(name, (...args) => resolve(args)));
  await once('open');
  const text = once('message');
  socket.send('hello');
  const [textData, textIsBinary] = await text;
  const binary = once('message');
  socket.send(Buffer.from([0, 1, 2, 255]));
  const [binaryData, binaryIsBinary] = await binary;
  const closed = once('close');
  socket.close(1000, 'done');
  const [code, reason] = await closed;
  return {
    text: { text: textData.toString(), isBinary: textIsBinary, isBuffer: Buffer.isBuffer(textData) },
    binary: { binary: [...binaryData], isBinary: binaryIsBinary },
    closed: { code, reason: reason.toString() },
    same: IsomorphicWebSocket.WebSocket === IsomorphicWebSocket && IsomorphicWebSocket.OPEN === 1,
  };
}

export const task = defineTask(async (ctx) => {
  if (ctx.arg('--ws-mode') === 'ws-package') return { data: await throughWsPackage(ctx.arg('--ws-url')) };
  const socket = new WebSocket(ctx.arg('--ws-url') ?? 'ws://127.0.0.1:9/');
  socket.binaryType = 'arraybuffer';
  const states = [socket.readyState];
  const mode = ctx.arg('--ws-mode') ?? 'echo';
  if (mode === 'receive') {
    // Busy for a while: the host opens the connection and receives what the server sends
    // meanwhile, so the first pump turn finds several events queued.
    const until = performance.now() + 300;
    while (performance.now() < until);
  }
  const opened = await next(socket, 'open', 'error');
  if (opened.type === 'error') throw new Error(`the connection failed: ${opened.message}`);
  states.push(socket.readyState);
  const count = Number(ctx.arg('--ws-count') ?? 0);
  if (count > 0) {
    const roundTrips = [];
    await ctx.step('round-trips', async () => {
      for (let index = 0; index < count; index++) {
        const start = performance.now();
        const reply = next(socket, 'message');
        socket.send(String(index));
        if ((await reply).data !== String(index)) throw new Error('a wrong echo');
        roundTrips.push((performance.now() - start) * 1000);
      }
    });
    socket.close(1000, 'done');
    await next(socket, 'close');
    roundTrips.sort((a, b) => a - b);
    return { data: { p50Us: roundTrips[Math.floor(roundTrips.length / 2)] } };
  }
  if (mode === 'receive') {
    const event = await next(socket, 'message', 'error');
    if (event.type === 'error') throw new Error(`the connection failed: ${event.message}`);
    return { data: { message: describe(event) } };
  }
  if (mode === 'leave') {
    const echo = next(socket, 'message');
    socket.send('left open');
    return { data: { echo: describe(await echo) } };
  }
  let onmessage = 0;
  socket.onmessage = () => onmessage++;
  const text = next(socket, 'message');
  socket.send('hello');
  const textEcho = describe(await text);
  const binary = next(socket, 'message');
  socket.send(new Uint8Array([0, 1, 2, 255]));
  const binaryEcho = describe(await binary);
  const closed = next(socket, 'close');
  socket.close(1000, 'done');
  states.push(socket.readyState);
  const close = describe(await closed);
  states.push(socket.readyState);
  return { data: { text: textEcho, binary: binaryEcho, closed: close, states, onmessage } };
});
