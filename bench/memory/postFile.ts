/** A multipart upload of one file to the local server, timed from its last byte sent. */
import { request } from 'node:http';

export interface PostedFile {
  status: number;
  /** The answer's `detail` (or its start) when it is not 200. */
  detail: string;
  /** The answer's body, parsed when it is JSON. */
  body: unknown;
  /** From the last byte sent to the end of the answer. */
  afterUploadMs: number;
}

/** Posts `bytes` as the form field `file` named `fileName` to `path` on 127.0.0.1:`port`. */
export function postFile(port: number, path: string, fileName: string, bytes: Buffer): Promise<PostedFile> {
  const boundary = 'archivistbenchmemory';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return new Promise((resolve, reject) => {
    let uploaded = 0;
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length },
    });
    req.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const afterUploadMs = performance.now() - (uploaded || performance.now());
        const status = response.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = null;
        }
        const detail =
          status === 200
            ? ''
            : parsed !== null
              ? String((parsed as { detail?: unknown }).detail ?? '')
              : text.slice(0, 200);
        resolve({ status, detail, body: parsed, afterUploadMs });
      });
    });
    req.on('error', reject);
    req.end(body, () => (uploaded = performance.now()));
  });
}
