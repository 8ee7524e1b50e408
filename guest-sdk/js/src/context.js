// The task context (upstream `ctx`): participant, taskIndex, phase, step, measure, log,
// plus the participant's environment and the custom CLI flags.

import * as host from './host.js';
import { errorMessage, stepErrorCode } from './errors.js';
import { isObject, isThenable, toJson } from './json.js';
import { toWitMeasures } from './values.js';

const LEVELS = ['debug', 'info', 'warn', 'error'];
const OUTCOME_KEYS = ['stdout', 'stderr', 'error', 'exitCode', 'code', 'signal', 'pid'];
const U32_MAX = 4294967295;

/**
 * The participant's environment, read from the host once per instance: a sandbox serves
 * one participant, whose environment does not change between its tasks.
 */
let environment;

function participantEnvironment() {
  environment ??= Object.freeze(Object.fromEntries(host.getEnvironment()));
  return environment;
}

/**
 * The context of one task run, made from the host's task input. Its members are plain
 * functions, so destructuring (`const { step, measure } = ctx`) works. Everything that does
 * not depend on the task input is shared between tasks, and the participant object is parsed
 * only when the task reads it: each host call and object the guest's interpreter makes costs
 * every task.
 */
export function createContext(input) {
  const env = participantEnvironment();
  const args = input.args;
  let participant;
  return {
    /** The participant object from the config, custom fields included. */
    get participant() {
      participant ??= parseParticipant(input.participant);
      return participant;
    },
    /** 0-based index of this task in the participant's schedule. */
    taskIndex: input.taskIndex,
    /** The phase of this task, or undefined. */
    phase: input.phase ?? undefined,
    /** The participant's environment (its declared secrets), like `process.env`. */
    env: readEnv,
    /** The value of a custom CLI flag declared in `customCliFlags` ('' when given bare). */
    arg: (flag) => findArg(args, flag),
    /** Runs `fn` as a named, timed step and resolves to its value (an array when parallel). */
    step,
    /** Merges measurements into the active step, or into the task when no step is active. */
    measure,
    /** Appends a line to the participant log; `{ level, meta }` or a meta object. */
    log: writeLog,
    /** The environment as an object (what the SDK installs as `process.env`). */
    environment: { ...env },
    /** The custom CLI flags as (flag, value) pairs in command-line order. */
    args,
  };
}

function readEnv(name) {
  return participantEnvironment()[name];
}

function findArg(args, flag) {
  for (const [name, value] of args) {
    if (name === flag) return value;
  }
  return undefined;
}

function parseParticipant(json) {
  try {
    return JSON.parse(json);
  } catch {
    return {};
  }
}

function step(name, fn, options) {
  return runStep(String(name), fn, options ?? {});
}

function measure(data) {
  host.measure(toWitMeasures(data));
}

/**
 * Runs `fn` as a named, timed step (upstream semantics, §2.2) and resolves to its value. A
 * body that returns a plain value ends the step at once; only a promise is waited for.
 */
function runStep(name, fn, options) {
  const concurrency = options.concurrency ?? 1;
  const timeoutMs = options.timeoutMs;
  const validConcurrency = Number.isInteger(concurrency) && concurrency >= 1;
  const validTimeout =
    timeoutMs === undefined || (typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs >= 0);
  const id = host.stepStart(name, {
    timeoutMs: validTimeout && timeoutMs !== undefined ? Math.min(Math.ceil(timeoutMs), U32_MAX) : undefined,
    concurrency: validConcurrency && options.concurrency !== undefined ? concurrency : undefined,
    captureOutput: typeof options.captureOutput === 'boolean' ? options.captureOutput : undefined,
  });
  const fail = (error) => {
    host.stepFail(id, stepErrorCode(error), errorMessage(error));
    throw error;
  };
  const end = (value) => {
    host.stepEnd(id, concurrency === 1 ? toOutcome(value) : undefined);
    return value;
  };
  let value;
  try {
    if (!validConcurrency) {
      throw new Error(`step "${name}" concurrency must be an integer >= 1 (got ${String(concurrency)})`);
    }
    if (!validTimeout) {
      throw new Error(`step "${name}" timeoutMs must be a number >= 0 (got ${String(timeoutMs)})`);
    }
    value = concurrency === 1 ? fn() : invokeAll(fn, concurrency);
  } catch (error) {
    return settle(() => fail(error));
  }
  if (isThenable(value)) return Promise.resolve(value).then(end, fail);
  return settle(() => end(value));
}

/** A promise of what `body` returns, rejected with what it throws. */
function settle(body) {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Invokes `fn` `count` times at once; throws the first rejection in invocation order. */
async function invokeAll(fn, count) {
  const settled = await Promise.allSettled(Array.from({ length: count }, () => fn()));
  const rejected = settled.find((result) => result.status === 'rejected');
  if (rejected) throw rejected.reason;
  return settled.map((result) => result.value);
}

/**
 * An "outcome-shaped" step value as the WIT step outcome, else undefined. The string members
 * are tested before the keys are listed: a step may return a downloaded object's bytes, and
 * the keys of a byte array are its millions of indices.
 */
function toOutcome(value) {
  if (!isObject(value)) return undefined;
  if (![value.stdout, value.stderr, value.error].some((item) => typeof item === 'string')) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((key) => OUTCOME_KEYS.includes(key))) return undefined;
  const text = (item) => (typeof item === 'string' ? item : undefined);
  const exitCode = [value.exitCode, value.code].find((item) => Number.isInteger(item));
  return { stdout: text(value.stdout), stderr: text(value.stderr), error: text(value.error), exitCode };
}

/** `ctx.log(message, metaOrOptions)`: options iff only `level`/`meta` keys (spec §8.1). */
function writeLog(message, metaOrOptions) {
  let level = 'info';
  let meta = metaOrOptions;
  if (isLogOptions(metaOrOptions)) {
    level = metaOrOptions.level ?? 'info';
    meta = metaOrOptions.meta;
  }
  const metaJson = meta !== null && typeof meta === 'object' && Object.keys(meta).length > 0 ? toJson(meta) : undefined;
  host.log(level, String(message), metaJson);
}

function isLogOptions(value) {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  return (
    keys.length > 0 &&
    keys.every((key) => key === 'level' || key === 'meta') &&
    (value.level === undefined || LEVELS.includes(value.level))
  );
}
