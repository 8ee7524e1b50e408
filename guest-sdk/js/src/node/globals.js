// The Node globals of a task bundle, and the browser XML globals. esbuild injects this
// module: a task or package that names `Buffer`, `process`, `setImmediate`,
// `clearImmediate`, `DOMParser`, `XMLSerializer` or `Node` without importing them gets
// these. Each comes through an ES module of its own, so a bundle that names none of them
// carries none of their code.

export { Buffer } from './internal/globals/buffer.js';
export { process } from './internal/globals/process.js';
export { setImmediate, clearImmediate } from './internal/globals/immediate.js';
export { DOMParser, XMLSerializer, Node } from './internal/globals/xml.js';
