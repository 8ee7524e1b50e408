// The `setImmediate` and `clearImmediate` globals (node:timers').

import timers from '../../timers.cjs';

export const setImmediate = timers.setImmediate;
export const clearImmediate = timers.clearImmediate;
