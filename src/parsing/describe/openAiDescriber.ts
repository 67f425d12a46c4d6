import type OpenAI from 'openai';
import { createOpenAiClient } from '../../models/openAiClient.js';
import type { Describer, ImageDescription, ImageToDescribe } from '../context.js';
import type { ImageKind } from '../model.js';
import { openImage, sniffImageFormat } from '../image/imageInput.js';
import { abortError, throwIfAborted } from '../abort.js';

export interface OpenAiDescriberOptions {
  /** Base URL including `/v1` (OpenAI, vLLM, Ollama, llama.cpp server…). */
  baseUrl: string;
  apiKey: string;
  /** A vision-capable chat model. */
  model: string;
  /** Time allowed for one request; past it the fallback describes the image. */
  timeoutMs: number;
  /** Used whenever the model cannot answer (HTTP error, timeout, refusal, empty or unusable reply). */
  fallback: Describer;
}

const SYSTEM_PROMPT = [
  'You describe images taken from documents so that they can be searched and read without the image.',
  'Be factual and concise: say what the image shows; for a chart give its type, axes, series and the',
  'values or trends it shows; for a diagram its parts and how they connect. Do not guess beyond what is',
  'visible. Answer in exactly this form:',
  'KIND: one of chart, diagram, photo, text, other',
  'DESCRIPTION: one to three sentences',
  'TEXT: the text visible in the image, verbatim, or "none"',
].join('\n');

const KINDS: Record<string, ImageKind> = {
  chart: 'chart',
  graph: 'chart',
  diagram: 'diagram',
  photo: 'photo',
  photograph: 'photo',
  text: 'text',
  other: 'unknown',
};

/** Vision models take PNG, JPEG, GIF and WebP; anything else is converted to PNG first. */
const SENDABLE: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg' };

/**
 * A Describer backed by a vision model behind any OpenAI-compatible chat completions endpoint: the
 * image goes as a `data:` URI with a short prompt asking for a factual description and the text it
 * shows. One request, no retries; any failure (or an answer without a description) falls back to
 * `fallback`, so a model outage never fails a document. Only the caller's abort is passed on.
 */
export function createOpenAiDescriber(options: OpenAiDescriberOptions): Describer {
  const client = createOpenAiClient(options);
  return {
    async describe(image, signal) {
      throwIfAborted(signal);
      try {
        const answer = await ask(await client(), options.model, image, signal);
        const parsed = parseAnswer(answer);
        if (parsed) return parsed;
      } catch {
        if (signal.aborted) throw abortError(signal);
      }
      return options.fallback.describe(image, signal);
    },
  };
}

async function ask(
  client: OpenAI,
  model: string,
  image: ImageToDescribe,
  signal: AbortSignal,
): Promise<string> {
  const facts = [
    image.format ? `Format: ${image.format}.` : '',
    image.width && image.height ? `Size: ${image.width}×${image.height} px.` : '',
    image.context ? `It appears in the document near: "${image.context.slice(0, 500)}".` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const completion = await client.chat.completions.create(
    {
      model,
      temperature: 0,
      max_tokens: 500,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        {
          role: 'user',
          content: [
            { type: 'text', text: `Describe this image. ${facts}`.trim() },
            { type: 'image_url', image_url: { url: await dataUri(image.data) } },
          ],
        },
      ],
    },
    { signal },
  );
  return completion.choices[0]?.message.content ?? '';
}

async function dataUri(data: Uint8Array): Promise<string> {
  const format = sniffImageFormat(data);
  if (format && format in SENDABLE) {
    return `data:${SENDABLE[format]};base64,${Buffer.from(data).toString('base64')}`;
  }
  if (!format) throw new Error('image format unknown');
  const png = await openImage(data, format, { page: 0 }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

/**
 * Reads the KIND / DESCRIPTION / TEXT answer; a model that ignores the form still gives a usable
 * description (the whole answer, kind unknown). Null when there is nothing to use.
 */
export function parseAnswer(answer: string): ImageDescription | null {
  const trimmed = answer.trim();
  if (!trimmed) return null;
  const fields = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of trimmed.split('\n')) {
    // "KIND: chart", also with Markdown bold ("**KIND:** chart") as chatty models write it.
    const label = /^\s*\**\s*(KIND|DESCRIPTION|TEXT)\s*\**\s*:\s*\**\s*(.*)$/i.exec(line);
    if (label) {
      current = [label[2] ?? ''];
      fields.set((label[1] ?? '').toUpperCase(), current);
    } else {
      current?.push(line);
    }
  }
  const field = (name: string): string | null => fields.get(name)?.join('\n').trim() ?? null;
  const description = field('DESCRIPTION');
  if (description === null) return { text: trimmed, kind: 'unknown', ocrText: null };
  if (!description) return null;
  const kindWord =
    field('KIND')
      ?.toLowerCase()
      .match(/[a-z]+/)?.[0] ?? '';
  const text =
    field('TEXT')
      ?.replace(/^"([\s\S]*)"$/, '$1')
      .trim() ?? '';
  const ocrText = text && !/^(none|n\/a|no text)\.?$/i.test(text) ? text : null;
  return { text: description, kind: KINDS[kindWord] ?? 'unknown', ocrText };
}
