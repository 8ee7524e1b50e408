// The module that imports the component's host interfaces for the task API: the bench:task
// context and the participant's environment (its secrets) from wasi:cli. (`natives.js`
// imports bench:task/natives itself, so a task that never uses it never loads it.)

export { stepStart, stepEnd, stepFail, measure, log } from 'bench:task/context@0.1.4';
export { getEnvironment } from 'wasi:cli/environment@0.2.12';
