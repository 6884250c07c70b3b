/**
 * Uploads through XMLHttpRequest, the one browser API that reports upload progress (fetch does
 * not): the session cookie, the CSRF token and an Idempotency-Key, the API's refusal in words.
 */
import { ApiProblem, currentCsrfToken, problemOf } from '../api.ts';

export interface UploadOptions {
  /** The same key for a retry of the same file: a response lost on the way cannot make a second object. */
  idempotencyKey: string;
  onProgress(sent: number, total: number): void;
  signal: AbortSignal;
}

/** An upload's outcome when the server answered: the refusal in words; `replayed` when it is a stored answer to the same key. */
export class UploadRefused extends ApiProblem {
  constructor(problem: ApiProblem, readonly replayed: boolean) {
    super(problem.status, problem.code, problem.title, problem.detail, problem.errors);
  }
}

/** POSTs `form` to `url`; resolves with the created object's JSON, rejects with UploadRefused, an ApiProblem (no answer) or an AbortError. */
export function postFile<T>(url: string, form: FormData, options: UploadOptions): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.setRequestHeader('idempotency-key', options.idempotencyKey);
    const token = currentCsrfToken();
    if (token) xhr.setRequestHeader('x-csrf-token', token);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) options.onProgress(e.loaded, e.total);
    };
    xhr.onload = () => {
      if (xhr.status === 201 || xhr.status === 200) {
        try {
          resolve(JSON.parse(xhr.responseText) as T);
        } catch {
          reject(new ApiProblem(xhr.status, 'bad_response', 'Unexpected answer', 'The server accepted the file but its answer could not be read. Reload the page to see it.'));
        }
        return;
      }
      reject(new UploadRefused(problemOf(xhr.status, xhr.statusText, xhr.responseText), xhr.getResponseHeader('idempotent-replayed') === 'true'));
    };
    xhr.onerror = () => reject(new ApiProblem(0, 'network_error', 'Upload interrupted', 'The connection was lost before the server answered. Check the connection and retry.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    options.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

/** A fresh Idempotency-Key (crypto.randomUUID needs a secure context; getRandomValues does not). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `upload-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

const sizeFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** "12 bytes", "3.4 KB", "1.2 MB". */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${sizeFormat.format(bytes / (1024 * 1024))} MB`;
  if (bytes >= 1024) return `${sizeFormat.format(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
