/** What is known of an image where it is found: where it comes from, and its alternative text. */
interface ImageClues {
  source?: string | null;
  altText: string | null;
  decorative?: boolean;
}

// Where badges and logos come from, and how their alternative texts start: shields and CI badges of
// READMEs, package and chat services, a project's logo.
const DECORATIVE_SOURCE =
  /shields\.io|badgen\.net|badge|travis-ci|coveralls|codecov|circleci|appveyor|snyk\.io|opencollective|gitter\.im|david-dm|packagephobia|bundlephobia|deepscan|codeclimate|sonarcloud|\/workflows\/[^/]+\/badge|(?:^|[/_.-])logo(?:[/_.-]|$)/i;
const DECORATIVE_ALT =
  /^(?:build(?:ing)?(?: status)?|ci|tests?|coverage(?: status)?|npm(?: version| package| downloads)?|version|downloads?|license|licen[cs]e: |gitter|chat|discord|slack|sponsors?|backers|pr'?s welcome|code style|install size|dependencies|dependency status|twitter|follow|donate|codecov|coveralls|known vulnerabilities|logo|banner|open ?collective)\b/i;

/** Whether an image is a badge or a logo by where it comes from or what its alternative text says. */
export function looksDecorative(image: Pick<ImageClues, 'source' | 'altText'>): boolean {
  return DECORATIVE_SOURCE.test(image.source ?? '') || DECORATIVE_ALT.test(image.altText?.trim() ?? '');
}

/**
 * The images of a line (a paragraph) that holds nothing else: a row of two or more is badges, and so
 * is a single one that looks like a badge or a logo; a single other image on its own line is a figure
 * and keeps its text.
 */
export function imageOnlyLine<T extends ImageClues>(text: string, images: readonly T[]): T[] {
  if (text.trim() !== '' || images.length === 0) return [...images];
  if (images.length === 1 && !looksDecorative(images[0]!)) return [...images];
  return images.map((image) => ({ ...image, decorative: true }));
}
