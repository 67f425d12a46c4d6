export * from './message.js';
export * from './decider.js';
export * from './errors.js';
export { deepEqual } from './deepEqual.js';
