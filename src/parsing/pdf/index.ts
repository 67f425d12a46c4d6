export { FULL_PROFILE_PAGES, INCREMENTAL_LOOKAHEAD, parsePdf, parsePdfIncremental } from './parsePdf.js';
