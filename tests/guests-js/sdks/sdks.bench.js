// One real call through each of eleven popular npm SDKs of HTTP APIs, imported unchanged:
// each participant is one SDK, configured the way its documentation says to point it at
// another endpoint (`--api`: the test's fake provider API; `--s3`: moto's S3-compatible
// server), and the task returns what the SDK answered for the test to check.
import { defineBenchmarkConfig, defineTask } from '@bench/task';
import * as ai from './ai.js';
import * as platforms from './platforms.js';
import * as storage from './storage.js';

const calls = { ...ai, ...platforms, ...storage };

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'js-sdks',
  benchmarkName: 'npm SDKs of HTTP APIs',
  participants: Object.keys(calls).map((name) => ({ name, requiredEnvVars: [] })),
  iterations: 1,
  allowedHosts: ['http://127.0.0.1:*'],
  customCliFlags: ['--api', '--s3'],
});

export const task = defineTask(async (ctx) => {
  const endpoints = { api: ctx.arg('--api'), s3: ctx.arg('--s3') };
  const call = calls[ctx.participant.name];
  const answer = await ctx.step('call', () => call(endpoints), { timeoutMs: 20000 });
  return { data: { answer } };
});
