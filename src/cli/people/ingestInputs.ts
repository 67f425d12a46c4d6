import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { hasGlobSyntax, splitGlob } from './globPattern.js';

/**
 * One thing to ingest: a file (`path` as shown to the person; `name`, its upload path: the file name,
 * or its `/`-separated path below the folder or glob that found it) or a URL.
 */
export type IngestInput = { kind: 'file'; path: string; name: string } | { kind: 'url'; url: string };

/** An argument or a file that is not ingested, and why. */
export interface LeftOut {
  input: string;
  reason: string;
}

export interface ExpandedInputs {
  inputs: IngestInput[];
  /** Arguments that name nothing to ingest: failures. */
  failures: LeftOut[];
  /** Files found but not taken (symbolic links leading out of the folder): not failures. */
  skipped: LeftOut[];
}

const isUrl = (argument: string): boolean => /^https?:\/\//i.test(argument);

const within = (folder: string, path: string): boolean => {
  const inside = relative(folder, path);
  return inside !== '' && !inside.startsWith('..') && !inside.startsWith(sep);
};

interface Walk {
  /** The folder's real path: symbolic links are followed only to files inside it. */
  realRoot: string;
  depth: number;
  /** Which files to take, by their `/`-separated path below the folder. */
  wanted(relativePath: string): boolean;
  found(path: string, relativePath: string): void;
  skip(path: string, reason: string): void;
  /** A folder that cannot be read: its files cannot be ingested. */
  fail(path: string, reason: string): void;
}

/**
 * The files below `folder`, depth first in name order: no dot-files or dot-folders (.git and the
 * like are not documents), and no symbolic link followed out of the folder. A link to a folder is
 * not followed at all: inside the tree its target is walked anyway.
 */
async function walk(folder: string, prefix: string, level: number, spec: Walk): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    spec.fail(folder, (error as Error).message);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    const relativePath = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (level + 1 < spec.depth) await walk(path, relativePath, level + 1, spec);
    } else if (entry.isFile()) {
      if (spec.wanted(relativePath)) spec.found(path, relativePath);
    } else if (entry.isSymbolicLink() && spec.wanted(relativePath)) {
      const target = await realpath(path).catch(() => null);
      const file = target ? await stat(target).catch(() => null) : null;
      if (target && file?.isFile() && within(spec.realRoot, target)) spec.found(path, relativePath);
      else if (!file?.isDirectory()) spec.skip(path, 'a symbolic link leading out of the folder');
    }
  }
}

/**
 * What `archivist ingest` arguments name: URLs as they are; a file; every file below a folder; the
 * files a glob matches (quoted, so that the shell leaves it). Each file is taken once, however many
 * arguments name it; an argument that names nothing is a failure.
 */
export async function expandInputs(args: readonly string[]): Promise<ExpandedInputs> {
  const inputs: IngestInput[] = [];
  const failures: LeftOut[] = [];
  const skipped: LeftOut[] = [];
  const seen = new Set<string>();
  // Below a folder the upload path keeps the folders: two README.md of two folders are two documents.
  const take = async (path: string, name = basename(path)): Promise<void> => {
    const real = await realpath(path).catch(() => path);
    if (seen.has(real)) return;
    seen.add(real);
    inputs.push({ kind: 'file', path, name });
  };
  const skip = (input: string, reason: string): void => void skipped.push({ input, reason });
  const fail = (input: string, reason: string): void => void failures.push({ input, reason });

  for (const argument of args) {
    if (isUrl(argument)) {
      if (!seen.has(argument)) inputs.push({ kind: 'url', url: argument });
      seen.add(argument);
      continue;
    }
    const named = await stat(argument).catch((error: NodeJS.ErrnoException) => error);
    if (!(named instanceof Error)) {
      if (named.isFile()) await take(argument);
      else if (named.isDirectory()) {
        const found: Array<[string, string]> = [];
        await walk(argument, '', 0, {
          realRoot: await realpath(argument),
          depth: Number.POSITIVE_INFINITY,
          wanted: () => true,
          found: (path, relativePath) => void found.push([path, relativePath]),
          skip,
          fail,
        });
        for (const [path, relativePath] of found) await take(path, relativePath);
        if (found.length === 0) failures.push({ input: argument, reason: 'the folder holds no files' });
      } else failures.push({ input: argument, reason: 'not a file or a folder' });
      continue;
    }
    if (named.code === 'ENOENT' && hasGlobSyntax(argument)) {
      const glob = splitGlob(argument);
      const found: Array<[string, string]> = [];
      const root = await realpath(glob.root).catch(() => null);
      if (root) {
        await walk(glob.root, '', 0, {
          realRoot: root,
          depth: glob.depth,
          wanted: (relativePath) => glob.pattern.test(relativePath),
          found: (path, relativePath) => void found.push([path, relativePath]),
          skip,
          fail,
        });
      }
      for (const [path, relativePath] of found) await take(path, relativePath);
      if (found.length === 0) failures.push({ input: argument, reason: 'matches no files' });
      continue;
    }
    failures.push({
      input: argument,
      reason: named.code === 'ENOENT' ? 'no such file or folder' : named.message,
    });
  }
  return { inputs, failures, skipped };
}
