// @bench/task: write bench tasks in JavaScript or TypeScript with the API of
// @benchsdk/runner (defineBenchmarkConfig, defineTask, TaskError, ctx.step/measure/log).

export { TaskError } from './errors.js';

/** The @benchsdk/runner version whose task API this SDK implements (its User-Agent name). */
export const BENCHSDK_RUNNER_VERSION = '0.3.0';

/** Returns the benchmark config unchanged; the bench host validates it (spec §1). */
export function defineBenchmarkConfig(config) {
  return config;
}

/** Returns the task function unchanged: `async (ctx) => TaskResult | void`. */
export function defineTask(task) {
  return task;
}
