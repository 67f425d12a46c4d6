export { detectFormat, extensionOf } from './detectFormat.js';
