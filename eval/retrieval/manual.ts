/**
 * Short keyword queries over a large HTML manual: the PostgreSQL 15 documentation (Debian's
 * postgresql-doc-15, 1,173 pages, 18 MB). The queries and their judgments are the manual's own book
 * index (`bookindex.html`): each top-level entry of one to three words whose links go to at most
 * three pages is a query ("ABORT", "advisory lock", "pg_stat_statements"), and the pages it links to
 * are the relevant ones. Every eighth entry is taken, in the index's order.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Parser } from 'htmlparser2';

export interface ManualQuery {
  query: string;
  /** Pages of the manual (file names) the index entry links to. */
  relevant: string[];
}

const PACKAGE = 'postgresql-doc-15';
const CACHE = join(homedir(), '.cache', 'archivist', 'eval-manual');
const HTML_PATH = join('usr', 'share', 'doc', PACKAGE, 'html');

/**
 * The manual's HTML folder: MANUAL_DIR when set, else Debian's package fetched once into the cache
 * (`apt-get download`, unpacked with `dpkg-deb -x`); null, with the reason, when neither is possible.
 */
export function manualFolder(): { dir: string } | { skipped: string } {
  const given = process.env['MANUAL_DIR'];
  if (given)
    return existsSync(join(given, 'bookindex.html'))
      ? { dir: given }
      : { skipped: `no bookindex.html in ${given}` };
  const dir = join(CACHE, HTML_PATH);
  if (existsSync(join(dir, 'bookindex.html'))) return { dir };
  mkdirSync(CACHE, { recursive: true });
  const download = spawnSync('apt-get', ['download', PACKAGE], { cwd: CACHE, stdio: 'ignore' });
  const deb = readdirSync(CACHE).find((name) => name.startsWith(`${PACKAGE}_`) && name.endsWith('.deb'));
  if (download.status !== 0 || !deb)
    return {
      skipped: `could not fetch Debian's ${PACKAGE} (apt-get download); set MANUAL_DIR to its html folder`,
    };
  const unpack = spawnSync('dpkg-deb', ['-x', deb, '.'], { cwd: CACHE, stdio: 'ignore' });
  if (unpack.status !== 0 || !existsSync(join(dir, 'bookindex.html')))
    return { skipped: `could not unpack ${deb} (dpkg-deb -x)` };
  return { dir };
}

/** The book index's top-level entries as keyword queries, every `every`-th of those that qualify. */
export function indexQueries(dir: string, every = 8): ManualQuery[] {
  const entries: Array<{ depth: number; text: string; links: string[] }> = [];
  let depth = 0;
  let current: { depth: number; text: string; links: string[] } | null = null;
  let inTerm = false;
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === 'dl') depth += 1;
      if (name === 'dt') {
        current = { depth, text: '', links: [] };
        inTerm = true;
      }
      if (name === 'a' && current && attributes['class'] === 'indexterm') {
        current.links.push((attributes['href'] ?? '').split('#')[0]!);
        inTerm = false;
      }
    },
    ontext(text) {
      if (current && inTerm) current.text += text;
    },
    onclosetag(name) {
      if (name === 'dl') depth -= 1;
      if (name === 'dt' && current) {
        entries.push(current);
        current = null;
      }
    },
  });
  parser.write(readFileSync(join(dir, 'bookindex.html'), 'utf8'));
  parser.end();
  const qualifying = entries
    .filter((entry) => entry.depth === 1 && entry.links.length > 0)
    .map((entry) => ({
      query: entry.text.replace(/\s+/g, ' ').trim().replace(/,$/, ''),
      relevant: [...new Set(entry.links)].filter((link) => link.endsWith('.html')),
    }))
    .filter((entry) => {
      const words = entry.query.split(' ').length;
      return words >= 1 && words <= 3 && entry.relevant.length >= 1 && entry.relevant.length <= 3;
    });
  return qualifying.filter((_, index) => index % every === 0);
}

/** The manual's pages (the book index itself left out: it would answer every query). */
export function manualPages(dir: string): Array<{ name: string; bytes: Buffer }> {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.html') && name !== 'bookindex.html')
    .sort()
    .map((name) => ({ name, bytes: readFileSync(join(dir, name)) }));
}
