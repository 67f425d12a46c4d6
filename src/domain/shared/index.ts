export * from './message.js';
export * from './decider.js';
export * from './errors.js';
export * from './eventCatalog.js';
