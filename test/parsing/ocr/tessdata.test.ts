import { expect } from 'chai';
import { lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTessdataDir, packagedTraineddata } from '../../../src/parsing/ocr/tessdata.js';

describe('tessdata folder', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'tessdata-test-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('links both packaged models into one folder, and nothing else', () => {
    expect(ensureTessdataDir(folder)).to.equal(folder);
    expect(readdirSync(folder).sort()).to.deep.equal(['ara.traineddata.gz', 'eng.traineddata.gz']);
    for (const language of ['eng', 'ara'] as const) {
      const file = join(folder, `${language}.traineddata.gz`);
      expect(lstatSync(file).isSymbolicLink()).to.equal(true);
      expect(realpathSync(file)).to.equal(realpathSync(packagedTraineddata(language)));
    }
  });

  it('replaces a stale file without writing into the packaged model, and is idempotent', () => {
    const packaged = packagedTraineddata('eng');
    const sizeBefore = statSync(packaged).size;
    writeFileSync(join(folder, 'eng.traineddata.gz'), 'stale');
    ensureTessdataDir(folder);
    ensureTessdataDir(folder);
    expect(realpathSync(join(folder, 'eng.traineddata.gz'))).to.equal(realpathSync(packaged));
    expect(statSync(packaged).size).to.equal(sizeBefore);
    expect(readdirSync(folder)).to.have.length(2);
  });

  it('uses a per-user folder under the system temporary folder by default', () => {
    const path = ensureTessdataDir();
    expect(path.startsWith(tmpdir())).to.equal(true);
    expect(path).to.match(/archivist-tessdata-/);
    expect(statSync(path).mode & 0o077).to.equal(0);
  });
});
