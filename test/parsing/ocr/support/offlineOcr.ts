// Child process for the offline test: OCR one image with the real engine and print what happened.
import { readFileSync } from 'node:fs';
import { createTesseractOcr } from '../../../../src/parsing/ocr/tesseractOcr.js';

const ocr = createTesseractOcr({ workers: 1 });
const image = readFileSync(new URL('../../../fixtures/documents/image/english.png', import.meta.url));
const result = await ocr.recognize(image, {
  languages: ['eng', 'ara'],
  signal: new AbortController().signal,
});
await ocr.close();
process.stdout.write(JSON.stringify({ langPath: ocr.langPath, text: result.text }));
