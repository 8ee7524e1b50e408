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

/** The context of one task run, made from the host's task input. */
export function createContext(input) {
  return new TaskContext(input);
}

/**
 * `ctx`. Its methods do not use `this`, so destructuring (`const { step, measure } = ctx`)
 * works. What does not depend on the task input is on the prototype, shared between tasks,
 * and the participant object and the environment's copy are made only when the task reads
 * them: every object the guest's interpreter makes costs every task.
 */
class TaskContext {
  #participantJson;
  #participant;
  #environment;

  constructor(input) {
    const args = input.args;
    /** 0-based index of this task in the participant's schedule. */
    this.taskIndex = input.taskIndex;
    /** The phase of this task, or undefined. */
    this.phase = input.phase ?? undefined;
    /** The value of a custom CLI flag declared in `customCliFlags` ('' when given bare). */
    this.arg = (flag) => findArg(args, flag);
    /** The custom CLI flags as (flag, value) pairs in command-line order. */
    this.args = args;
    this.#participantJson = input.participant;
  }

  /** The participant object from the config, custom fields included. */
  get participant() {
    this.#participant ??= parseParticipant(this.#participantJson);
    return this.#participant;
  }

  /** The participant's environment as an object (a copy). */
  get environment() {
    this.#environment ??= { ...participantEnvironment() };
    return this.#environment;
  }
}

Object.assign(TaskContext.prototype, {
  /** The participant's environment (its declared secrets), like `process.env`. */
  env: readEnv,
  /** Runs `fn` as a named, timed step and resolves to its value (an array when parallel). */
  step,
  /** Merges measurements into the active step, or into the task when no step is active. */
  measure,
  /** Appends a line to the participant log; `{ level, meta }` or a meta object. */
  log: writeLog,
});

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
  return runStep(String(name), fn, options ?? NO_OPTIONS);
}

function measure(data) {
  host.measure(toWitMeasures(data));
}

/** A step's options when none are given, and what the host is then told. */
const NO_OPTIONS = Object.freeze({});
const NO_WIT_OPTIONS = Object.freeze({ timeoutMs: undefined, concurrency: undefined, captureOutput: undefined });

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
  const id = host.stepStart(
    name,
    options === NO_OPTIONS
      ? NO_WIT_OPTIONS
      : {
          timeoutMs: validTimeout && timeoutMs !== undefined ? Math.min(Math.ceil(timeoutMs), U32_MAX) : undefined,
          concurrency: validConcurrency && options.concurrency !== undefined ? concurrency : undefined,
          captureOutput: typeof options.captureOutput === 'boolean' ? options.captureOutput : undefined,
        },
  );
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
    return settle(() => failStep(id, error));
  }
  if (isThenable(value)) {
    return Promise.resolve(value).then(
      (result) => endStep(id, concurrency, result),
      (error) => failStep(id, error),
    );
  }
  // A plain value: no closures, no promise job but the one the caller awaits.
  try {
    return Promise.resolve(endStep(id, concurrency, value));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Ends step `id` with `value` (its outcome when it has one's shape) and returns `value`. */
function endStep(id, concurrency, value) {
  host.stepEnd(id, concurrency === 1 ? toOutcome(value) : undefined);
  return value;
}

/** Fails step `id` with `error`, then throws it on. */
function failStep(id, error) {
  host.stepFail(id, stepErrorCode(error), errorMessage(error));
  throw error;
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
