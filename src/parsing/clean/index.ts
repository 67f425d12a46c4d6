export { cleanDocument, cleanBlocks, type CleanOptions } from './cleanDocument.js';
export { detectLanguage, detectDocumentLanguage } from './language.js';
export { removeUrls } from './urls.js';
