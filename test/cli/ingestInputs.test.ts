import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { globRegExp, splitGlob } from '../../src/cli/people/globPattern.js';
import { expandInputs } from '../../src/cli/people/ingestInputs.js';

describe('ingest inputs: globs', () => {
  it('matches * and ? within one segment, ** across segments, and [sets]', () => {
    const matches = (pattern: string, paths: string[]) =>
      paths.filter((path) => globRegExp(pattern).test(path));
    expect(matches('*.md', ['a.md', 'b.txt', 'sub/c.md'])).to.deep.equal(['a.md']);
    expect(matches('file?.txt', ['file1.txt', 'file12.txt', 'file.txt'])).to.deep.equal(['file1.txt']);
    expect(matches('**/*.pdf', ['a.pdf', 'x/b.pdf', 'x/y/c.pdf', 'x/d.md'])).to.deep.equal([
      'a.pdf',
      'x/b.pdf',
      'x/y/c.pdf',
    ]);
    expect(matches('report-[0-9].md', ['report-1.md', 'report-a.md'])).to.deep.equal(['report-1.md']);
    expect(matches('report-[!0-9].md', ['report-1.md', 'report-a.md'])).to.deep.equal(['report-a.md']);
    expect(matches('notes/**', ['notes/a.md', 'notes/x/b.md', 'other/c.md'])).to.deep.equal([
      'notes/a.md',
      'notes/x/b.md',
    ]);
    // Characters special to regular expressions are themselves.
    expect(matches('a+b (1).md', ['a+b (1).md', 'aab (1).md'])).to.deep.equal(['a+b (1).md']);
    expect(matches('odd[.md', ['odd[.md'])).to.deep.equal(['odd[.md']);
  });

  it('walks from the folder before the first glob segment, only as deep as the pattern goes', () => {
    expect(splitGlob('docs/**/*.pdf')).to.deep.include({ root: 'docs', depth: Number.POSITIVE_INFINITY });
    expect(splitGlob('/srv/a/*/x.md')).to.deep.include({ root: '/srv/a', depth: 2 });
    expect(splitGlob('*.md')).to.deep.include({ root: '.', depth: 1 });
  });
});

describe('ingest inputs: what the arguments name', () => {
  let root: string;
  let outside: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'archivist-inputs-'));
    outside = await mkdtemp(join(tmpdir(), 'archivist-outside-'));
    for (const path of ['a.md', 'sub/b.md', 'sub/deep/c.pdf', '.hidden.md', '.git/config.md']) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), `# ${path}\n`);
    }
    await writeFile(join(outside, 'secret.md'), '# Secret\n');
    await symlink(join(outside, 'secret.md'), join(root, 'leak.md'));
    await symlink(join(root, 'a.md'), join(root, 'alias.md'));
    await symlink(outside, join(root, 'elsewhere'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it('takes a folder recursively without dot-files, and follows no link out of it', async () => {
    const expanded = await expandInputs([root]);
    // Each file's upload path is its path below the folder.
    expect(expanded.inputs).to.deep.equal([
      { kind: 'file', path: join(root, 'a.md'), name: 'a.md' },
      { kind: 'file', path: join(root, 'sub/b.md'), name: 'sub/b.md' },
      { kind: 'file', path: join(root, 'sub/deep/c.pdf'), name: 'sub/deep/c.pdf' },
    ]);
    // alias.md is a.md again (taken once); elsewhere/ is a link to a folder (not followed).
    expect(expanded.skipped).to.deep.equal([
      { input: join(root, 'leak.md'), reason: 'a symbolic link leading out of the folder' },
    ]);
    expect(expanded.failures).to.deep.equal([]);
  });

  it('takes the files a glob matches, URLs as they are, each once, and fails what names nothing', async () => {
    const expanded = await expandInputs([
      `${root}/**/*.md`,
      join(root, 'a.md'),
      'https://example.org/page',
      'http://example.org/other',
      'https://example.org/page',
      `${root}/*.docx`,
      join(root, 'missing.md'),
    ]);
    expect(expanded.inputs).to.deep.equal([
      { kind: 'file', path: join(root, 'a.md'), name: 'a.md' },
      { kind: 'file', path: join(root, 'sub/b.md'), name: 'sub/b.md' },
      { kind: 'url', url: 'https://example.org/page' },
      { kind: 'url', url: 'http://example.org/other' },
    ]);
    expect(expanded.failures).to.deep.equal([
      { input: `${root}/*.docx`, reason: 'matches no files' },
      { input: join(root, 'missing.md'), reason: 'no such file or folder' },
    ]);
  });

  it('takes a dot-file the person names', async () => {
    const expanded = await expandInputs([join(root, '.hidden.md')]);
    expect(expanded.inputs).to.deep.equal([
      { kind: 'file', path: join(root, '.hidden.md'), name: '.hidden.md' },
    ]);
  });
});
