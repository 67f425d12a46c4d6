/**
 * Shell-style globs for `archivist ingest 'docs/**\/*.pdf'` (Node 20 has no fs.glob, and no glob
 * library is a dependency): `*` any characters of one path segment, `?` one character, `[abc]`,
 * `[a-z]`, `[!a-z]` one of (or none of) a set, and `**` as a whole segment any number of segments.
 */

/** Whether `text` holds glob syntax (else it names one path). */
export const hasGlobSyntax = (text: string): boolean => /[*?[]/.test(text);

/** The class `[…]` starting at `start` as a RegExp class, and where it ends; null when unclosed. */
function characterClass(segment: string, start: number): { regex: string; end: number } | null {
  let at = start + 1;
  let negated = false;
  if (segment[at] === '!' || segment[at] === '^') {
    negated = true;
    at += 1;
  }
  // A `]` first in the set is one of its characters, not its end.
  const close = segment.indexOf(']', segment[at] === ']' ? at + 1 : at);
  if (close < 0) return null;
  const members = segment.slice(at, close).replace(/[\\\]^[]/g, (character) => `\\${character}`);
  return { regex: `[${negated ? '^/' : ''}${members}]`, end: close };
}

function segmentRegex(segment: string): string {
  let regex = '';
  for (let at = 0; at < segment.length; at += 1) {
    const character = segment[at]!;
    if (character === '*') regex += '[^/]*';
    else if (character === '?') regex += '[^/]';
    else if (character === '[') {
      const set = characterClass(segment, at);
      if (set) {
        regex += set.regex;
        at = set.end;
      } else regex += '\\[';
    } else regex += character.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return regex;
}

/** The RegExp matching the `/`-separated relative paths that `pattern` names. */
export function globRegExp(pattern: string): RegExp {
  const segments = pattern.split('/').filter((segment) => segment !== '');
  let regex = '';
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if (segment === '**') regex += last ? '.*' : '(?:[^/]+/)*';
    else regex += segmentRegex(segment) + (last ? '' : '/');
  });
  return new RegExp(`^${regex}$`);
}

/**
 * A glob split where it starts: the folder to walk (its segments before the first with glob
 * syntax), the pattern of paths below it, and how deep those go (Infinity with `**`).
 */
export function splitGlob(glob: string): { root: string; pattern: RegExp; depth: number } {
  const absolute = glob.startsWith('/');
  const segments = glob.split('/').filter((segment) => segment !== '');
  const first = segments.findIndex(hasGlobSyntax);
  const fixed = first < 0 ? segments : segments.slice(0, first);
  const rest = first < 0 ? [] : segments.slice(first);
  const root = fixed.length > 0 ? `${absolute ? '/' : ''}${fixed.join('/')}` : absolute ? '/' : '.';
  return {
    root,
    pattern: globRegExp(rest.join('/')),
    depth: rest.includes('**') ? Number.POSITIVE_INFINITY : rest.length,
  };
}
