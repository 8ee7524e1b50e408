// An empty task: what a JavaScript task costs per iteration beyond its own work. With
// `--step` it runs one step that records one measurement instead.
import { defineBenchmarkConfig, defineTask } from '@bench/task';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'js-noop',
  benchmarkName: 'JS no-op',
  participants: [{ name: 'local', requiredEnvVars: [] }],
  iterations: 1000,
  customCliFlags: ['--step'],
});

export const task = defineTask(async (ctx) => {
  if (ctx.arg('--step') !== undefined) {
    await ctx.step('work', () => {
      ctx.measure({ value: 1 });
    });
  }
});
