// Test task: every task fetches `--url` and reads the whole body (`--read none`: only the
// status), as a load test does in one reused instance. `--read reader` reads the body chunk
// by chunk with a stream reader, `--read node` through node:http (the path SDKs built for Node
// take); the body is read in a step `body` (scripts/bench-body.sh times it).
import { get } from 'node:http';
import { defineBenchmarkConfig, defineTask, TaskError } from '@bench/task';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'guest-js-fetch',
  benchmarkName: 'JS fetch',
  participants: [{ name: 'local', requiredEnvVars: [] }],
  iterations: 1,
  allowedHosts: ['http://127.0.0.1:*'],
  customCliFlags: ['--url', '--read'],
});

/** How a body arrived: its length, its number of chunks and the largest chunk's length. */
function arrival(sizes) {
  return {
    bytes: sizes.reduce((sum, size) => sum + size, 0),
    chunks: sizes.length,
    largestChunk: Math.max(0, ...sizes),
  };
}

/** The body read chunk by chunk with a stream reader: its arrival. */
async function readChunks(body) {
  const reader = body.getReader();
  const sizes = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return arrival(sizes);
    sizes.push(value.byteLength);
  }
}

/** The body of a node:http GET, collected as SDKs built for Node collect it: its arrival. */
function nodeGet(url) {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      const parts = [];
      response.on('data', (chunk) => parts.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(parts);
        resolve({ ...arrival(parts.map((part) => part.byteLength)), bytes: body.byteLength });
      });
      response.on('error', reject);
    }).on('error', reject);
  });
}

export const task = defineTask(async (ctx) => {
  const read = ctx.arg('--read') ?? 'array';
  if (read === 'node') {
    return { data: await ctx.step('body', () => nodeGet(ctx.arg('--url'))) };
  }
  const response = await fetch(ctx.arg('--url'));
  if (!response.ok) {
    throw new TaskError(`answered ${response.status}`, { code: 'http_status' });
  }
  if (read === 'none') return { data: { bytes: 0 } };
  if (read === 'reader') {
    return { data: await ctx.step('body', () => readChunks(response.body)) };
  }
  const bytes = await ctx.step('body', async () => (await response.arrayBuffer()).byteLength);
  return { data: { bytes } };
});
