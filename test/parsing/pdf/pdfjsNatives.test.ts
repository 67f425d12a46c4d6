import { expect } from 'chai';
import { loadPdfjs } from '../../../src/parsing/pdf/pdfjs.js';

describe('loading pdf.js', () => {
  it('leaves Array.prototype.push, JSON.stringify and JSON.parse native (its core-js replaced them, 3-30x slower)', async () => {
    await loadPdfjs();
    for (const fn of [Array.prototype.push, JSON.stringify, JSON.parse]) {
      expect(Function.prototype.toString.call(fn), fn.name).to.contain('[native code]');
    }
    const list: number[] = [];
    expect(list.push(1, 2)).to.equal(2);
    expect(JSON.parse(JSON.stringify({ a: [1] }))).to.deep.equal({ a: [1] });
  });

  it('keeps the functions pdf.js needs that Node 20 lacks', async () => {
    await loadPdfjs();
    // Not in this TypeScript target's lib: pdf.js's polyfill adds it on Node 20.
    expect((Promise as { withResolvers?: unknown }).withResolvers).to.be.a('function');
    expect(
      (globalThis as { pdfjsWorker?: { WorkerMessageHandler?: unknown } }).pdfjsWorker?.WorkerMessageHandler,
    ).to.be.a('function');
  });
});
