import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';

const script = join(import.meta.dirname, '..', '..', 'scripts', 'build-if-stale.mjs');

/**
 * `npm start`'s pre-step, in a project of its own whose build writes the two outputs and counts its
 * runs: a current build is left alone, a source of either step newer than its output rebuilds.
 */
describe('npm start builds only when a source is newer than the build (scripts/build-if-stale.mjs)', function () {
  this.timeout(60_000);
  let root: string;
  const at = (...parts: string[]) => join(root, ...parts);
  const builds = (): number => (existsSync(at('builds')) ? readFileSync(at('builds'), 'utf8').length : 0);
  const start = () =>
    spawnSync(process.execPath, [at('scripts', 'build-if-stale.mjs')], { encoding: 'utf8' });
  /** Sets a file's time `seconds` from now. */
  const age = (path: string, seconds: number) => {
    const time = new Date(Date.now() + seconds * 1_000);
    utimesSync(path, time, time);
  };
  /** Makes a source newer than what was built last, as an edit after the build would. */
  const edit = (path: string) => {
    const time = new Date(statSync(at('dist', '.tsbuildinfo')).mtimeMs + 5);
    utimesSync(path, time, time);
  };

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'archivist-build-check-'));
    for (const folder of ['scripts', 'src', 'console']) mkdirSync(at(folder));
    copyFileSync(script, at('scripts', 'build-if-stale.mjs'));
    const build =
      "node -e \"const f=require('fs');f.mkdirSync('dist/console',{recursive:true});f.writeFileSync('dist/.tsbuildinfo','');f.writeFileSync('dist/console/index.html','');f.appendFileSync('builds','x')\"";
    writeFileSync(at('package.json'), JSON.stringify({ name: 'probe', private: true, scripts: { build } }));
    writeFileSync(at('src', 'main.ts'), 'export {};\n');
    writeFileSync(at('console', 'app.tsx'), 'export {};\n');
    for (const path of ['package.json', 'src/main.ts', 'console/app.tsx', 'src', 'console'])
      age(at(path), -60);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('builds when there is no build yet, then not again', () => {
    const first = start();
    expect(first.status, first.stderr).to.equal(0);
    expect(first.stderr).to.include('building (no build yet)');
    expect(builds()).to.equal(1);
    const second = start();
    expect(second.status).to.equal(0);
    expect(second.stderr).to.equal('');
    expect(builds()).to.equal(1);
  });

  it('rebuilds when a server source or a console source is newer than its step’s output', () => {
    edit(at('src', 'main.ts'));
    expect(start().stderr).to.include('sources changed since the last build');
    expect(builds()).to.equal(2);
    expect(start().stderr).to.equal('');
    edit(at('console', 'app.tsx'));
    expect(start().stderr).to.include('sources changed since the last build');
    expect(builds()).to.equal(3);
    expect(start().stderr).to.equal('');
    expect(builds()).to.equal(3);
  });
});
