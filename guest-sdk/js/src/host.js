// The only module that imports the component's host interfaces: the bench:task context
// and the participant's environment (its secrets) from wasi:cli.

export { stepStart, stepEnd, stepFail, measure, log } from 'bench:task/context@0.1.0';
export { getEnvironment } from 'wasi:cli/environment@0.2.12';
