// Task failures and how thrown values become error codes (upstream getErrorCode).

/**
 * A task failure with a code recorded as the record's `errorCode`, data merged into the
 * record's data, and pre-measured steps (upstream `TaskError`).
 */
export class TaskError extends Error {
  /**
   * @param {string} message
   * @param {{ code?: string, data?: object, steps?: object[] }} [options]
   */
  constructor(message, options = {}) {
    super(message);
    this.name = 'TaskError';
    this.code = options.code;
    this.data = options.data;
    this.steps = options.steps;
  }
}

/** Whether `error` is a TaskError, by class or by name (a TaskError from another bundle). */
export function isTaskError(error) {
  return error instanceof TaskError || (error instanceof Error && error.name === 'TaskError');
}

/**
 * The error code of a thrown value: a non-empty string `code` of an Error, else its
 * non-empty `name`, else `ERROR`.
 */
export function errorCode(error) {
  if (error instanceof Error) {
    if (typeof error.code === 'string' && error.code !== '') return error.code;
    if (typeof error.name === 'string' && error.name !== '') return error.name;
  }
  return 'ERROR';
}

/** The error code a failed step records: a TaskError's code or name, else errorCode. */
export function stepErrorCode(error) {
  if (isTaskError(error)) return String(error.code ?? error.name);
  return errorCode(error);
}

/** The message of a thrown value: an Error's message, else the value as a string. */
export function errorMessage(error) {
  if (error instanceof Error) return String(error.message);
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}
