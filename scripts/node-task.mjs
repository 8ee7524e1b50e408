// Runs a bench task module under plain Node, for comparison with bench running it: the same
// `config` and `task` exports, a context whose `step` times its body with performance.now()
// and whose `arg` reads the `--flag value` pairs given after the iteration count. Prints one
// JSON line per task: { "taskIndex": n, "steps": { "<step name>": milliseconds } }.
//
// Usage: node scripts/node-task.mjs TASK_MODULE ITERATIONS [--flag value]...
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [modulePath, iterations, ...flags] = process.argv.slice(2);
const module = await import(pathToFileURL(resolve(modulePath)).href);
const task = module.task ?? module.default;
const args = new Map();
for (let i = 0; i < flags.length; i += 2) args.set(flags[i], flags[i + 1] ?? '');

for (let taskIndex = 0; taskIndex < Number(iterations); taskIndex++) {
  const steps = {};
  const ctx = {
    participant: module.config.participants[0],
    taskIndex,
    arg: (flag) => args.get(flag),
    env: (name) => process.env[name],
    measure() {},
    log() {},
    async step(name, fn) {
      const started = performance.now();
      try {
        return await fn();
      } finally {
        steps[name] = performance.now() - started;
      }
    },
  };
  await task(ctx);
  console.log(JSON.stringify({ taskIndex, steps }));
}
