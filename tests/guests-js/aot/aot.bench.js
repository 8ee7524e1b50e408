// Test task compiled ahead of time (weval): nested and awaited steps with measurements, a
// log line with metadata, and with `--throw <kind>` at task index 1 a thrown error.
import { defineBenchmarkConfig, defineTask, TaskError } from '@bench/task';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'guest-js-aot',
  benchmarkName: 'JS AOT',
  participants: [{ name: 'p', requiredEnvVars: [] }],
  iterations: 3,
  customCliFlags: ['--throw'],
});

const failures = {
  'task-error': () => {
    throw new TaskError('failing as asked', { code: 'planned_failure', data: { at: 1 } });
  },
  type: () => null.missing,
};

export const task = defineTask(async (ctx) => {
  const sum = await ctx.step('sum', async () => {
    let total = 0;
    for (let i = 1; i <= 1000; i++) total += i;
    await ctx.step('inner', () => ctx.measure({ label: 'inner', parts: [1, 2.5] }));
    ctx.measure({ total });
    return total;
  });
  ctx.log(`task ${ctx.taskIndex} summed ${sum}`, { level: 'warn', meta: { sum } });
  const kind = ctx.arg('--throw');
  if (kind !== undefined && ctx.taskIndex === 1) {
    await ctx.step('fail', failures[kind]);
  }
  return { data: { sum, big: 2n ** 40n } };
});
