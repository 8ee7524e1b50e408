// A small task showing every part of the task API: steps, a nested step, measurements,
// logs, phases, participant fields, a custom CLI flag and a failing task.
import { defineBenchmarkConfig, defineTask, TaskError } from '@bench/task';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'js-hello',
  benchmarkName: 'JS hello',
  participants: [
    { name: 'alpha', requiredEnvVars: [], region: 'eu' },
    { name: 'beta', requiredEnvVars: [], region: 'us' },
  ],
  phases: [
    { name: 'cold', iterations: 1 },
    { name: 'warm', iterations: 2 },
  ],
  customCliFlags: ['--fail-at'],
});

export const task = defineTask(async (ctx) => {
  ctx.log('starting', { region: ctx.participant.region });
  const sandbox = await ctx.step('create', () => {
    ctx.measure({ sandboxes: 1 });
    return `${ctx.participant.name}-${ctx.taskIndex}`;
  });
  await ctx.step('exec', async () => {
    await ctx.step('connect', () => {
      ctx.measure({ handshakes: 1 });
    });
    let checksum = 0;
    for (let i = 1; i <= 1000; i++) checksum += i;
    ctx.measure({ checksum });
  });
  if (parseInt(ctx.arg('--fail-at') ?? '', 10) === ctx.taskIndex) {
    throw new TaskError('failing as asked by --fail-at', {
      code: 'planned_failure',
      data: { sandbox },
    });
  }
  ctx.measure({ answer: 42 });
  return { data: { sandbox } };
});
