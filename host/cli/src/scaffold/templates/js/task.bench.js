// {{title}}: one iteration of the workload in `task`, the benchmark in `config`.
import { defineBenchmarkConfig, defineTask } from '@bench/task';

export const config = defineBenchmarkConfig({
  benchmarkSlug: '{{slug}}',
  benchmarkName: '{{title}}',
  participants: [{ name: 'local', requiredEnvVars: [] }],
  iterations: 3,
});

export const task = defineTask(async (ctx) => {
  const items = await ctx.step('prepare', () => Array.from({ length: 100 }, (_, i) => i + 1));
  await ctx.step('work', () => {
    const sum = items.reduce((total, item) => total + item, 0);
    ctx.measure({ items: items.length, sum });
  });
  ctx.log('done');
  return { data: { participant: ctx.participant.name } };
});
