import { expect } from 'chai';
import { ingestProgress } from '../../src/cli/people/ingestProgress.js';

function recorder(isTTY: boolean) {
  const written: string[] = [];
  return {
    written,
    stream: {
      isTTY,
      columns: 60,
      write(text: string) {
        written.push(text);
        return true;
      },
    },
  };
}

describe('ingest progress', () => {
  it('on a terminal, redraws one line: bar, inputs done of all, the latest stage; and clears it at the end', () => {
    const { stream, written } = recorder(true);
    // A clock that stands still: after the first, only a finished input redraws the line.
    const progress = ingestProgress(stream, 2, () => 1_000_000);
    progress.stage('docs/a.md', 'uploading', 0);
    progress.finished('docs/a.md', { status: 'added', docId: 'd1', title: 'A' });
    progress.stage('docs/a-very-long-name-of-a-file-that-does-not-fit.md', 'parse: page 2 of 9', 0.5);
    progress.finished('docs/b.md', { status: 'failed', reason: 'broken' });
    progress.close();
    expect(written[0]).to.equal('\r\x1b[K[--------------------] 0/2 docs/a.md — uploading');
    expect(written[1]).to.equal('\r\x1b[K[##########----------] 1/2 docs/a.md — uploading');
    expect(written[2]).to.equal('\r\x1b[K[####################] 2/2 docs/a-very-long-name-of-a-file…');
    expect(written[2]!.length - '\r\x1b[K'.length).to.equal(59);
    expect(written[3]).to.equal('\r\x1b[K');
    expect(written).to.have.length(4);
  });

  it('elsewhere, writes one line per finished input with its outcome', () => {
    const { stream, written } = recorder(false);
    const progress = ingestProgress(stream, 3);
    progress.stage('a.md', 'uploading', 0);
    progress.finished('a.md', { status: 'added', docId: 'd1', title: 'Alpha' });
    progress.finished('b.md', {
      status: 'duplicate',
      docId: 'd1',
      title: 'Alpha',
      reason: 'same content as Alpha',
    });
    progress.finished('c.exe', { status: 'failed', reason: 'Unsupported file type .exe' });
    progress.close();
    expect(written).to.deep.equal([
      'added     a.md (Alpha)\n',
      'duplicate b.md (same content as Alpha)\n',
      'failed    c.exe: Unsupported file type .exe\n',
    ]);
  });
});
