import type { ImageToDescribe, ParseContext } from '../context.js';
import { isParseError } from '../errors.js';
import type { Block, Image, ParsedDocument } from '../model.js';
import { mapLimit } from '../../mapLimit.js';
import { abortError, throwIfAborted } from '../abort.js';

/** Images described at once: a vision endpoint or the OCR pool (about two workers) does the work. */
const CONCURRENCY = 2;
/** A paragraph next to an image that starts like this is its caption. */
const CAPTION =
  /^(?:figure|fig\.|chart|graph|diagram|image|photo|picture|illustration|map|شكل|صورة|رسم|مخطط)(?=[\s\d.:)-]|$)/i;
const CAPTION_MAX_CHARS = 300;

/**
 * The describing stage, run after any parser. With `enableImageDescription`, each image that still
 * has its bytes goes to `ctx.describer` (with the nearest preceding heading, an adjacent caption and
 * the alt text as context) and gets its description, kind and OCR text; without it, each gets a
 * minimal factual line (format, size, alt text) and the describer is not called. Either way the
 * bytes are dropped afterwards: they never leave the parse stage.
 *
 * One image failing to be described (a describer error or its own timeout) is a warning and the
 * minimal line, not a failed document; an abort of `ctx.signal` stops the stage with its `ParseError`.
 */
export async function describeImages(document: ParsedDocument, ctx: ParseContext): Promise<ParsedDocument> {
  const { blocks, warnings } = await describeBlocks(document.blocks, ctx);
  return { ...document, blocks, warnings: [...document.warnings, ...warnings] };
}

/**
 * The describing stage on a run of blocks (a whole document, or one page of an incremental parse):
 * the blocks with their images described, and the warnings of the images that could not be.
 */
export async function describeBlocks(
  blocks: readonly Block[],
  ctx: ParseContext,
): Promise<{ blocks: Block[]; warnings: string[] }> {
  throwIfAborted(ctx.signal);
  const positions = blocks.flatMap((block, position) => (block.type === 'image' ? [position] : []));
  const described = await mapLimit(positions, CONCURRENCY, async (position) => {
    const block = blocks[position] as Extract<Block, { type: 'image' }>;
    const outcome = await describeOne(block.image, contextOf(blocks, position), ctx);
    return { position, block: { ...block, image: outcome.image }, warning: outcome.warning };
  });
  const out = [...blocks];
  for (const { position, block } of described) out[position] = block;
  return { blocks: out, warnings: described.flatMap(({ warning }) => (warning ? [warning] : [])) };
}

async function describeOne(
  image: Image,
  context: string | null,
  ctx: ParseContext,
): Promise<{ image: Image; warning: string | null }> {
  const done = { ...image, data: null };
  // A badge or a logo is not worth a description (nor a vision call): it never becomes chunk text.
  if (!ctx.options.enableImageDescription || !image.data || image.kind === 'decoration') {
    return { image: { ...done, description: image.description || factualLine(image) }, warning: null };
  }
  throwIfAborted(ctx.signal);
  const input: ImageToDescribe = {
    data: image.data,
    format: image.format,
    width: image.width,
    height: image.height,
    context,
    ocrText: image.ocrText,
  };
  try {
    const result = await ctx.describer.describe(input, ctx.signal);
    return {
      image: {
        ...done,
        description: result.text.trim() || factualLine(image),
        kind: result.kind,
        ocrText: image.ocrText || result.ocrText || image.ocrText,
      },
      warning: null,
    };
  } catch (error) {
    // Only the caller stopping (or the OCR engine closing) ends the stage; a describer's own time
    // limit or failure costs this one image its description.
    if (ctx.signal.aborted) throw abortError(ctx.signal);
    if (isParseError(error) && error.code === 'aborted') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    return {
      image: { ...done, description: factualLine(image) },
      warning: `image ${image.index + 1} on page ${image.pageNumber} could not be described: ${reason}`,
    };
  }
}

/** "PNG image, 800×600 px. Alt text: Sales by region" — what is known without looking. */
function factualLine(image: Pick<Image, 'format' | 'width' | 'height' | 'altText'>): string {
  const format = image.format
    ? `${image.format === 'jpeg' ? 'JPEG' : image.format.toUpperCase()} image`
    : 'Image';
  const size = image.width && image.height ? `, ${image.width}×${image.height} px` : '';
  const alt = image.altText?.trim() ? ` Alt text: ${image.altText.trim()}` : '';
  return `${format}${size}.${alt}`;
}

/** The nearest preceding heading, an adjacent caption and the alt text, joined; null if none. */
function contextOf(blocks: readonly Block[], position: number): string | null {
  let heading: string | null = null;
  for (let at = position - 1; at >= 0; at -= 1) {
    const block = blocks[at];
    if (block?.type === 'heading') {
      heading = block.text;
      break;
    }
  }
  const caption = [blocks[position + 1], blocks[position - 1]]
    .map((block) => (block?.type === 'paragraph' ? block.text.trim() : ''))
    .find((text) => text.length > 0 && text.length <= CAPTION_MAX_CHARS && CAPTION.test(text));
  const image = blocks[position];
  const alt = image?.type === 'image' ? image.image.altText?.trim() : undefined;
  const parts = [heading, caption, alt].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? [...new Set(parts)].join(' — ') : null;
}
