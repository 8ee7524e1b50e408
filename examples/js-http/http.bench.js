// An HTTP latency benchmark written the way @benchsdk/runner benchmarks are: each task
// fetches the participant's URL in a timed step, then a burst of parallel requests, and
// measures status, size and time to first byte. `--url` points every participant elsewhere.
import { defineBenchmarkConfig, defineTask, TaskError } from '@bench/task';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'js-http',
  benchmarkName: 'JS HTTP latency',
  participants: [{ name: 'local', requiredEnvVars: [], url: 'http://127.0.0.1:8080/' }],
  iterations: 5,
  allowedHosts: ['http://127.0.0.1:*', 'http://localhost:*'],
  customCliFlags: ['--url'],
});

const BURST = 4;

async function get(url) {
  const started = performance.now();
  const response = await fetch(url);
  const firstByteMs = performance.now() - started;
  const body = await response.text();
  if (!response.ok) {
    throw new TaskError(`GET ${url} answered ${response.status}`, {
      code: 'http_status',
      data: { status: response.status },
    });
  }
  return { status: response.status, bytes: body.length, firstByteMs };
}

export const task = defineTask(async (ctx) => {
  const url = ctx.arg('--url') || ctx.participant.url;
  const first = await ctx.step('request', async () => {
    const result = await get(url);
    ctx.measure({ status: result.status, bytes: result.bytes, ttfbMs: Math.round(result.firstByteMs) });
    return result;
  }, { timeoutMs: 10000 });
  const burst = await ctx.step('burst', () => get(url), { concurrency: BURST, timeoutMs: 10000 });
  ctx.measure({ burstTtfbMs: burst.map((result) => Math.round(result.firstByteMs)) });
  return { data: { url, bytes: first.bytes } };
});
