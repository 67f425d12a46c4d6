import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, retrieval } from './api';
import { createPool } from './pool';
import { followTask, NEW_TASK, type TaskView } from './taskProgress';
import type { TaskAccepted } from './wire';
import { ErrorAlert } from './errorAlert';

const ACCEPTED =
  '.txt,.md,.markdown,.rst,.pdf,.docx,.pptx,.html,.htm,.json,.csv,.xlsx,.png,.jpg,.jpeg,.tiff,.tif,.bmp,.zip';
const SUPPORTED = new Set(ACCEPTED.split(','));
const extensionOf = (name: string): string => name.slice(name.lastIndexOf('.')).toLowerCase();
/** Uploads in flight at once (each holds a connection until its task ends). */
const PARALLEL_UPLOADS = 3;

interface Upload {
  key: number;
  name: string;
  kind: 'file' | 'archive' | 'url';
  task: TaskView;
  /** What it came to: the ingestion result's title and chunks, or the archive's totals. */
  outcome: string | null;
}

interface TaskRecord {
  status: string;
  error: string | null;
  result: Record<string, unknown> | null;
}

const chunks = (count: unknown): string => `${String(count ?? 0)} ${count === 1 ? 'chunk' : 'chunks'}`;

/** A task's result in a sentence: what was stored, or why nothing was. */
function outcomeOf(record: TaskRecord): string {
  const result = record.result ?? {};
  if (record.error) return record.error;
  if (result['is_duplicate']) return String(result['duplicate_message'] ?? 'Already stored');
  if ('urls_processed' in result)
    return `${String(result['successful'])} of ${String(result['urls_processed'])} pages stored, ${chunks(result['total_chunks_added'])}`;
  const timings = result['timings_ms'] as Record<string, number> | undefined;
  const stages = timings ? ` (${Object.keys(timings).join(' → ')})` : '';
  // The title isolated (FSI … PDI): an Arabic one would otherwise pull the quote marks and the count
  // into its own right-to-left run.
  return `Stored “\u2068${String(result['title'] ?? '')}\u2069”: ${chunks(result['chunks_added'])}${stages}`;
}

function Progress(props: { upload: Upload }) {
  const { name, task, outcome, key } = props.upload;
  const label = `progress-${key}`;
  return (
    <li class={`upload ${task.status}`}>
      <p id={label}>
        <strong dir="auto">{name}</strong> — <span class="status">{task.status}</span>
        {task.stage && task.status === 'running' ? `, stage ${task.stage}` : ''}
        {task.detail ? ` (${task.detail})` : ''}
      </p>
      <progress aria-labelledby={label} max={1} value={task.progress} />
      {task.stages.length > 0 && <p class="hint">Stages seen: {task.stages.join(' → ')}</p>}
      <ErrorAlert message={task.error} />
      {outcome && <p dir="auto">{outcome}</p>}
    </li>
  );
}

/**
 * Upload files (each its own background task, followed live stage by stage), a folder (each
 * supported file inside, keeping its path in the folder), a ZIP archive (every supported file
 * inside) and web pages by URL.
 */
export function UploadView() {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [section, setSection] = useState('uploaded');
  const [collection, setCollection] = useState('');
  const files = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement>(null);
  const next = useRef(0);
  const stops = useRef<Array<() => void>>([]);
  const [enqueue] = useState(() => createPool(PARALLEL_UPLOADS));
  useEffect(() => () => stops.current.forEach((stop) => stop()), []);
  useEffect(() => {
    // Not an attribute Preact's types know: set on the element.
    if (folder.current) folder.current.webkitdirectory = true;
  }, []);

  const update = (key: number, change: Partial<Upload>): void =>
    setUploads((all) => all.map((upload) => (upload.key === key ? { ...upload, ...change } : upload)));
  const add = (name: string, kind: Upload['kind']): number => {
    const key = (next.current += 1);
    setUploads((all) => [{ key, name, kind, task: NEW_TASK, outcome: null }, ...all]);
    return key;
  };
  /** Shows the task's progress as it goes; resolves when it has ended. */
  const follow = (key: number, taskId: string): Promise<void> =>
    new Promise((resolve) => {
      const stop = followTask(taskId, (task) => {
        update(key, { task });
        if (task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled') {
          resolve();
          retrieval<TaskRecord>('GET', `/tasks/${taskId}`)
            .then((record) => update(key, { outcome: outcomeOf(record) }))
            .catch((failure: unknown) => update(key, { outcome: describeError(failure) }));
        }
      });
      stops.current.push(() => {
        stop();
        resolve();
      });
    });
  const target = (): Record<string, string> => ({
    section: section.trim() || 'uploaded',
    ...(collection.trim() ? { collection: collection.trim() } : {}),
  });

  const sendFile = async (key: number, file: File, path: string | null): Promise<void> => {
    const archive = extensionOf(file.name) === '.zip';
    const form = new FormData();
    form.append('file', file, file.name);
    if (path && !archive) form.append('path', path);
    for (const [name, value] of Object.entries(target())) form.append(name, value);
    try {
      if (archive) {
        // The archive is read in one request; its answer lists every file inside.
        update(key, { task: { ...NEW_TASK, status: 'running', stage: 'upload' } });
        const result = await retrieval<Record<string, number>>('POST', '/upload/bulk/zip', { body: form });
        update(key, {
          task: { ...NEW_TASK, status: 'completed', progress: 1, stage: 'done' },
          outcome: `${result['successful']} of ${result['total_files']} files stored, ${result['duplicates']} duplicates, ${result['failed']} failed`,
        });
      } else {
        const accepted = await retrieval<TaskAccepted>('POST', '/upload/async', { body: form });
        await follow(key, accepted.task_id);
      }
    } catch (failure) {
      update(key, { task: { ...NEW_TASK, status: 'failed', error: describeError(failure) } });
    }
  };

  const onUpload = (event: Event): void => {
    event.preventDefault();
    setError(null);
    const chosen = [...(files.current?.files ?? [])].map((file) => ({ file, path: null }));
    const inFolder = [...(folder.current?.files ?? [])];
    const fromFolder = inFolder
      .filter((file) => SUPPORTED.has(extensionOf(file.name)))
      .map((file) => ({ file, path: file.webkitRelativePath || null }));
    if (chosen.length + fromFolder.length === 0) {
      setError(
        inFolder.length > 0
          ? 'The folder holds no file of a supported type.'
          : 'Choose one or more files or a folder first.',
      );
      return;
    }
    for (const { file, path } of [...chosen, ...fromFolder]) {
      const key = add(path ?? file.name, extensionOf(file.name) === '.zip' ? 'archive' : 'file');
      enqueue(() => sendFile(key, file, path));
    }
    if (files.current) files.current.value = '';
    if (folder.current) folder.current.value = '';
  };

  const onScrape = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(null);
    const address = url.trim();
    if (!address) return;
    const key = add(address, 'url');
    try {
      const accepted = await retrieval<TaskAccepted>('POST', '/scrape/async', {
        body: { urls: [address], ...(collection.trim() ? { collection: collection.trim() } : {}) },
      });
      setUrl('');
      void follow(key, accepted.task_id);
    } catch (failure) {
      update(key, { task: { ...NEW_TASK, status: 'failed', error: describeError(failure) } });
    }
  };

  return (
    <>
      <h1>Upload</h1>
      <fieldset class="panel">
        <legend>Where documents go</legend>
        <label>
          Section
          <input value={section} onInput={(event) => setSection(event.currentTarget.value)} maxLength={200} />
        </label>
        <label>
          Collection (empty: the default one)
          <input
            value={collection}
            onInput={(event) => setCollection(event.currentTarget.value)}
            pattern="[a-z0-9][a-z0-9_\-]{0,63}"
          />
        </label>
      </fieldset>
      <form class="panel" onSubmit={onUpload} aria-labelledby="files-heading">
        <h2 id="files-heading">Files and folders</h2>
        <p class="hint">
          Choose documents, .zip archives (every supported file inside is stored) or a whole folder (its
          supported files, each with its path in the folder).
        </p>
        <label>
          Files
          <input ref={files} type="file" name="files" multiple accept={ACCEPTED} />
        </label>
        <label>
          Folder
          <input ref={folder} type="file" name="folder" multiple />
        </label>
        <button type="submit">Upload</button>
      </form>
      <form class="panel" onSubmit={(event) => void onScrape(event)} aria-labelledby="url-heading">
        <h2 id="url-heading">Web page</h2>
        <label>
          URL
          <input
            type="url"
            value={url}
            onInput={(event) => setUrl(event.currentTarget.value)}
            placeholder="https://example.org/page"
          />
        </label>
        <button type="submit">Fetch and store</button>
      </form>
      <ErrorAlert message={error} />
      <section aria-labelledby="progress-heading" aria-live="polite">
        <h2 id="progress-heading">Progress</h2>
        {uploads.length === 0 ? (
          <p>Nothing uploaded yet.</p>
        ) : (
          <ul class="plain uploads">
            {uploads.map((upload) => (
              <Progress key={upload.key} upload={upload} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
