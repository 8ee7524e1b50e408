// The component's exports: `config` and `run` of the bench:task world, made from a task
// module that exports `config` (defineBenchmarkConfig) and `task` (defineTask) or a default.

import { createContext } from './context.js';
import { errorCode, errorMessage, isTaskError } from './errors.js';
import { isObject, jsonObject, toJson } from './json.js';
import { toWitSteps } from './values.js';

/**
 * The `config` and `run` exports for a task module (which must export `config` and a task).
 * `run` never throws anything but the WIT `task-error`: whatever the task throws becomes a
 * task error (spec §2.7).
 */
export function exportTask(module) {
  const task = module.task ?? module.default;
  // Checked when the component is built (its module is initialised then), so a task module
  // without these exports fails the build with this message.
  if (!isObject(module.config)) {
    throw new Error('the task module must export `config` created with defineBenchmarkConfig');
  }
  if (typeof task !== 'function') {
    throw new Error('the task module must export a `task` created with defineTask (or a default export)');
  }
  return {
    config() {
      return toJson(module.config);
    },
    async run(input) {
      try {
        const ctx = createContext(input);
        installProcess(ctx);
        return toTaskOutput(await task(ctx));
      } catch (error) {
        throw toTaskError(error);
      }
    },
  };
}

/** Gives the task a `process.env` (its participant's secrets) and `process.argv` (custom flags). */
function installProcess(ctx) {
  const process = (globalThis.process ??= {});
  process.env = { ...ctx.environment };
  process.argv = ['bench', 'task', ...ctx.args.flatMap(([flag, value]) => (value === '' ? [flag] : [flag, value]))];
}

function toTaskOutput(result) {
  const output = isObject(result) ? result : {};
  return {
    data: jsonObject(output.data),
    latencyMs: typeof output.latencyMs === 'number' ? output.latencyMs : undefined,
    steps: toWitSteps(output.steps),
  };
}

/** A thrown value as the WIT task-error: a TaskError keeps its code, data and steps. */
function toTaskError(error) {
  if (isTaskError(error)) {
    return {
      thrown: false,
      code: error.code == null ? undefined : String(error.code),
      message: errorMessage(error),
      data: jsonObject(error.data),
      steps: toWitSteps(error.steps),
    };
  }
  return { thrown: true, code: errorCode(error), message: errorMessage(error), data: undefined, steps: [] };
}
