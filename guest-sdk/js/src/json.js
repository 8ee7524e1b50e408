// JSON encoding that hides BigInt quirks: a BigInt is written as a number, never throws.

/** JSON text of `value`, with BigInt values written as numbers. */
export function toJson(value) {
  return JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? Number(item) : item));
}

/** Whether `value` is a plain (non-null, non-array) object. */
export function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSON text of `value` when it is a plain object, else undefined. */
export function jsonObject(value) {
  return isObject(value) ? toJson(value) : undefined;
}

/** Whether `value` has a `then` method (a promise or another thenable). */
export function isThenable(value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';
}
