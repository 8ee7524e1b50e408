// The task context (upstream `ctx`): participant, taskIndex, phase, step, measure, log,
// plus the participant's environment and the custom CLI flags.

import * as host from './host.js';
import { errorMessage, stepErrorCode } from './errors.js';
import { isObject, toJson } from './json.js';
import { toWitMeasures } from './values.js';

const LEVELS = ['debug', 'info', 'warn', 'error'];
const OUTCOME_KEYS = ['stdout', 'stderr', 'error', 'exitCode', 'code', 'signal', 'pid'];
const U32_MAX = 4294967295;

/**
 * The context of one task run, made from the host's task input. Its members are plain
 * functions, so destructuring (`const { step, measure } = ctx`) works.
 */
export function createContext(input) {
  const env = Object.fromEntries(host.getEnvironment());
  const args = input.args.map(([flag, value]) => [flag, value]);
  return {
    /** The participant object from the config, custom fields included. */
    participant: parseParticipant(input.participant),
    /** 0-based index of this task in the participant's schedule. */
    taskIndex: input.taskIndex,
    /** The phase of this task, or undefined. */
    phase: input.phase ?? undefined,
    /** The participant's environment (its declared secrets), like `process.env`. */
    env: (name) => env[name],
    /** The value of a custom CLI flag declared in `customCliFlags` ('' when given bare). */
    arg: (flag) => args.find(([name]) => name === flag)?.[1],
    /** Runs `fn` as a named, timed step and resolves to its value (an array when parallel). */
    step: (name, fn, options) => runStep(String(name), fn, options ?? {}),
    /** Merges measurements into the active step, or into the task when no step is active. */
    measure: (data) => host.measure(toWitMeasures(data)),
    /** Appends a line to the participant log; `{ level, meta }` or a meta object. */
    log: (message, metaOrOptions) => writeLog(message, metaOrOptions),
    /** The environment as an object (what the SDK installs as `process.env`). */
    environment: env,
    /** The custom CLI flags as (flag, value) pairs in command-line order. */
    args,
  };
}

function parseParticipant(json) {
  try {
    return JSON.parse(json);
  } catch {
    return {};
  }
}

/** Runs `fn` as a named, timed step (upstream semantics, §2.2) and returns its value. */
async function runStep(name, fn, options) {
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
  try {
    if (!validConcurrency) {
      throw new Error(`step "${name}" concurrency must be an integer >= 1 (got ${String(concurrency)})`);
    }
    if (!validTimeout) {
      throw new Error(`step "${name}" timeoutMs must be a number >= 0 (got ${String(timeoutMs)})`);
    }
    const value = concurrency === 1 ? await fn() : await invokeAll(fn, concurrency);
    host.stepEnd(id, concurrency === 1 ? toOutcome(value) : undefined);
    return value;
  } catch (error) {
    host.stepFail(id, stepErrorCode(error), errorMessage(error));
    throw error;
  }
}

/** Invokes `fn` `count` times at once; throws the first rejection in invocation order. */
async function invokeAll(fn, count) {
  const settled = await Promise.allSettled(Array.from({ length: count }, () => fn()));
  const rejected = settled.find((result) => result.status === 'rejected');
  if (rejected) throw rejected.reason;
  return settled.map((result) => result.value);
}

/** An "outcome-shaped" step value as the WIT step outcome, else undefined. */
function toOutcome(value) {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length === 0 || !keys.every((key) => OUTCOME_KEYS.includes(key))) return undefined;
  const text = (item) => (typeof item === 'string' ? item : undefined);
  if (![value.stdout, value.stderr, value.error].some((item) => typeof item === 'string')) return undefined;
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
