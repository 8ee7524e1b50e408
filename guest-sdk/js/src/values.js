// Conversions between JS values and the WIT types of the task contract.

import { isObject, jsonObject, toJson } from './json.js';

/** A measured value as the WIT `value` variant. */
export function toWitValue(value) {
  switch (typeof value) {
    case 'number':
      return { tag: 'number', val: value };
    case 'bigint':
      return { tag: 'number', val: Number(value) };
    case 'string':
      return { tag: 'text', val: value };
    case 'boolean':
      return { tag: 'flag', val: value };
    default:
      if (Array.isArray(value) && value.every((item) => typeof item === 'number')) {
        return { tag: 'numbers', val: value };
      }
      return { tag: 'json', val: toJson(value) ?? 'null' };
  }
}

/** The measurements of an object as WIT (key, value) pairs; undefined values are left out. */
export function toWitMeasures(data) {
  const measures = [];
  if (!isObject(data)) return measures;
  for (const key of Object.keys(data)) {
    const value = data[key];
    if (value !== undefined && typeof value !== 'function') measures.push([key, toWitValue(value)]);
  }
  return measures;
}

/** A pre-measured step record (upstream `TaskStepRecord`) as the WIT `step-record`. */
export function toWitStep(step) {
  return {
    name: String(step?.name ?? ''),
    status: step?.status === 'error' ? 'error' : 'success',
    startedAt: isoTime(step?.startedAt),
    completedAt: isoTime(step?.completedAt),
    latencyMs: typeof step?.latencyMs === 'number' ? step.latencyMs : undefined,
    data: jsonObject(step?.data),
    errorCode: step?.errorCode == null ? undefined : String(step.errorCode),
  };
}

/** Pre-measured steps as WIT step records (anything but an array is no steps). */
export function toWitSteps(steps) {
  return Array.isArray(steps) ? steps.map(toWitStep) : [];
}

function isoTime(time) {
  if (time instanceof Date) return time.toISOString();
  return typeof time === 'string' ? time : undefined;
}
