export { renderFullText, renderBlockText, type FullTextOptions } from './renderFullText.js';
export { renderMarkdown } from './renderMarkdown.js';
export { renderHeading, renderList, renderListItem, renderTable, renderImage, imageText } from './blocks.js';
