/**
 * Office formats: DOCX, PPTX and XLSX, and their OpenDocument twins ODT, ODP and ODS, parsed from their XML parts, every part read through `safeZip`
 * so that no byte is inflated beyond the parse limits (decompression bombs, lying headers, entry floods).
 */
export { parseDocx } from './parseDocx.js';
export { parsePptx, NOTES_PREFIX } from './parsePptx.js';
export { parseXlsx } from './parseXlsx.js';
export { parseOdt, parseOds, parseOdp } from './parseOdf.js';
export { openSafeZip, type SafeZip } from './safeZip.js';
