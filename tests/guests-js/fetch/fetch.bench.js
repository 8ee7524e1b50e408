// Test task: every task fetches `--url` and reads the whole body (`--read none`: only the
// status), as a load test does in one reused instance.
import { defineBenchmarkConfig, defineTask, TaskError } from '@bench/task';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'guest-js-fetch',
  benchmarkName: 'JS fetch',
  participants: [{ name: 'local', requiredEnvVars: [] }],
  iterations: 1,
  allowedHosts: ['http://127.0.0.1:*'],
  customCliFlags: ['--url', '--read'],
});

export const task = defineTask(async (ctx) => {
  const response = await fetch(ctx.arg('--url'));
  if (!response.ok) {
    throw new TaskError(`answered ${response.status}`, { code: 'http_status' });
  }
  const bytes = ctx.arg('--read') === 'none' ? 0 : (await response.arrayBuffer()).byteLength;
  return { data: { bytes } };
});
