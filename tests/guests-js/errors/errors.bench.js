// Test task: `--throw <kind>` makes it fail in one particular way; without it, it checks
// the environment, BigInt handling, log options, parallel steps and step values. `--throw busy`
// fails no way: a step keeps the guest busy for 300 ms, the next waits 300 ms on a timer (for
// the guest CPU each records).
import { defineBenchmarkConfig, defineTask, TaskError } from '@bench/task';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'guest-js-errors',
  benchmarkName: 'JS errors',
  participants: [{ name: 'p', requiredEnvVars: ['GUEST_SECRET'] }],
  iterations: 1,
  customCliFlags: ['--throw'],
});

function withCode(message, code) {
  const error = new Error(message);
  error.code = code;
  return error;
}

const failures = {
  plain: () => {
    throw new Error('plain failure');
  },
  code: () => {
    throw withCode('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED');
  },
  type: () => null.missing,
  'task-error': () => {
    throw new TaskError('quota exceeded', {
      code: 'quota_exceeded',
      data: { remaining: 0n, region: 'eu' },
      steps: [{ name: 'remote', status: 'error', latencyMs: 5, errorCode: 'remote_failed' }],
    });
  },
  'task-error-no-code': () => {
    throw new TaskError('no code');
  },
  value: () => {
    throw 'just a string';
  },
  object: () => {
    throw { reason: 'not an Error' };
  },
};

export const task = defineTask(async (ctx) => {
  const kind = ctx.arg('--throw');
  if (kind === 'in-step') {
    await ctx.step('outer', () => ctx.step('inner', () => failures['task-error']()));
  }
  if (kind === 'slow') {
    await ctx.step('wait', () => new Promise((resolve) => setTimeout(resolve, 5000)), { timeoutMs: 100 });
  }
  if (kind === 'spin') {
    await ctx.step('spin', () => {
      for (;;);
    }, { timeoutMs: 100 });
  }
  if (kind === 'bad-concurrency') {
    await ctx.step('bad', () => 1, { concurrency: 0 });
  }
  if (kind === 'busy') {
    await ctx.step('busy', () => {
      const end = Date.now() + 300;
      while (Date.now() < end);
    });
    await ctx.step('nap', () => new Promise((resolve) => setTimeout(resolve, 300)));
    return { data: { busy: true } };
  }
  if (kind) failures[kind]();

  // Destructured, as tasks may: ctx's methods must not depend on `this`.
  const { measure, env } = ctx;
  measure({ secret: env('GUEST_SECRET'), viaProcess: process.env.GUEST_SECRET, path: process.env.PATH ?? null });
  measure({ big: 2n ** 40n });
  ctx.log('as options', { level: 'warn' });
  ctx.log('as meta', { level: 'warn', extra: 1 });
  const results = await ctx.step('parallel', async () => 7, { concurrency: 3 });
  const outcome = await ctx.step('command', () => ({ stdout: 'line one\nline two', exitCode: 0 }));
  // A step's value may be a large byte array (a downloaded object): it is no outcome.
  const bytes = await ctx.step('bytes', () => new Uint8Array(16 * 1024 * 1024), { timeoutMs: 10000 });
  return { data: { results, outcomeExit: outcome.exitCode, bytes: bytes.length, count: 1n } };
});
