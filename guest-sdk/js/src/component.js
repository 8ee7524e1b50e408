// The component's exports: `config` and `run` of the bench:task world, made from a task
// module that exports `config` (defineBenchmarkConfig) and `task` (defineTask) or a default.
//
// `run` is a plain function, not an `async` one: the generated export binding already awaits
// what it returns, and every extra async function or `await` is a promise job the guest's
// JavaScript interpreter pays for on every task.

import './web/fetch.js';
import './web/streams.js';
import './web/subtle.js';
import './web/websocket.js';
import { createContext } from './context.js';
import { errorCode, errorMessage, isTaskError } from './errors.js';
import { isObject, isThenable, jsonObject, toJson } from './json.js';
import { toWitSteps } from './values.js';

/**
 * The `config` and `run` exports for a task module (which must export `config` and a task).
 * `run` never throws or rejects with anything but the WIT `task-error`: whatever the task
 * throws becomes a task error (spec §2.7).
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
    run(input) {
      let result;
      try {
        const ctx = createContext(input);
        if (!processInstalled) {
          installProcess(ctx);
          processInstalled = true;
        }
        result = task(ctx);
      } catch (error) {
        throw toTaskError(error);
      }
      if (result instanceof Promise) return result.then(finish, fail);
      return isThenable(result) ? Promise.resolve(result).then(finish, fail) : finish(result);
    },
  };
}

/**
 * Whether `process` is set up: once per instance, as a sandbox serves one participant with
 * the same flags in every task (and, as in Node, `process.env` is the process's own).
 */
let processInstalled = false;

/** What the task returned as the WIT task-output (a failing conversion fails the task). */
function finish(result) {
  try {
    return toTaskOutput(result);
  } catch (error) {
    return fail(error);
  }
}

function fail(error) {
  throw toTaskError(error);
}

/** Gives the task a `process.env` (its participant's secrets) and `process.argv` (custom flags). */
function installProcess(ctx) {
  const process = (globalThis.process ??= {});
  process.env = ctx.environment;
  const argv = ['bench', 'task'];
  for (const [flag, value] of ctx.args) {
    argv.push(flag);
    if (value !== '') argv.push(value);
  }
  process.argv = argv;
}

/** What a task that returns no object outputs (the export binding only reads it). */
const NO_OUTPUT = Object.freeze({ data: undefined, latencyMs: undefined, steps: Object.freeze([]) });

function toTaskOutput(result) {
  if (!isObject(result)) return NO_OUTPUT;
  return {
    data: jsonObject(result.data),
    latencyMs: typeof result.latencyMs === 'number' ? result.latencyMs : undefined,
    steps: toWitSteps(result.steps),
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
