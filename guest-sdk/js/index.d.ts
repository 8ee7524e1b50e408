// Types of @bench/task (the API of @benchsdk/runner's task side).

/** A participant: a name, the environment variables it needs, and custom fields. */
export interface Participant {
  name: string;
  requiredEnvVars?: string[];
  [field: string]: unknown;
}

/** A named segment of the schedule. */
export interface Phase {
  name: string;
  iterations: number;
}

/** The benchmark config (upstream `defineBenchmarkConfig` fields); the host validates it. */
export interface BenchmarkConfig {
  benchmarkSlug: string;
  benchmarkName: string;
  participants: Participant[];
  iterations?: number;
  phases?: Phase[];
  concurrency?: number;
  staggerDelayMs?: number;
  groupBy?: 'participant' | 'round';
  defaultProviders?: string[];
  shapes?: Record<string, { slug: string; name?: string; staggerDelayMs?: number }>;
  dimensions?: Record<string, unknown>;
  scoring?: Record<string, unknown>;
  customCliFlags?: string[];
  display?: Record<string, unknown>;
  /** Hosts the tasks may reach over HTTP, e.g. `"http://127.0.0.1:*"`. */
  allowedHosts?: string[];
  [field: string]: unknown;
}

/** Options of one step. */
export interface StepOptions {
  /** Fail the step with errorCode `step_timeout` after this many ms; the host stops the work. */
  timeoutMs?: number;
  /** Invoke `fn` this many times at once; the step resolves to the array of results. */
  concurrency?: number;
  /** Write an outcome-shaped value ({ stdout, stderr, error, exitCode }) to the log (default true). */
  captureOutput?: boolean;
}

/** A step the task measured itself. */
export interface TaskStepRecord {
  name: string;
  status: 'success' | 'error';
  startedAt?: string | Date;
  completedAt?: string | Date;
  latencyMs?: number;
  data?: Record<string, unknown>;
  errorCode?: string | null;
}

/** What a task may return. */
export interface TaskResult {
  data?: Record<string, unknown>;
  steps?: TaskStepRecord[];
  latencyMs?: number;
}

/** Log level. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The context of one task run. */
export interface TaskContext<P extends Participant = Participant> {
  participant: P;
  taskIndex: number;
  phase: string | undefined;
  /** Runs `fn` as a timed step; resolves to its value, or to the array of values with `concurrency` > 1. */
  step<T, N extends number = 1>(
    name: string,
    fn: () => T | Promise<T>,
    options?: StepOptions & { concurrency?: N },
  ): Promise<N extends 1 ? T : T[]>;
  measure(data: Record<string, unknown>): void;
  log(message: string, metaOrOptions?: Record<string, unknown> | { level?: LogLevel; meta?: Record<string, unknown> }): void;
  /** An environment variable of this participant (its declared secrets). */
  env(name: string): string | undefined;
  /** A custom CLI flag's value ('' when given without a value), or undefined. */
  arg(flag: string): string | undefined;
  environment: Record<string, string>;
  args: [string, string][];
}

/** A task: one iteration of the workload. */
export type Task<P extends Participant = Participant> = (ctx: TaskContext<P>) => Promise<TaskResult | void> | TaskResult | void;

/** Returns the config unchanged (the host validates it). */
export function defineBenchmarkConfig<C extends BenchmarkConfig>(config: C): C;

/** Returns the task unchanged. */
export function defineTask<P extends Participant = Participant>(task: Task<P>): Task<P>;

/** A task failure recorded with its code and data (no `errorMessage`). */
export class TaskError extends Error {
  constructor(message: string, options?: { code?: string; data?: Record<string, unknown>; steps?: TaskStepRecord[] });
  code: string | undefined;
  data: Record<string, unknown> | undefined;
  steps: TaskStepRecord[] | undefined;
}

/** The @benchsdk/runner version whose task API this SDK implements (`"0.3.0"`). */
export const BENCHSDK_RUNNER_VERSION: string;
