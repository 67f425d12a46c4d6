/**
 * The two APIs as the console calls them: same origin, the login session's cookie as credentials
 * (the server accepts it on both APIs). Failures become an ApiError carrying the API's own message.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Told when a call finds the session gone, so the console shows the sign-in form again. */
let onSignedOut: () => void = () => undefined;
export const whenSignedOut = (handler: () => void): void => {
  onSignedOut = handler;
};

type Query = Record<string, string | number | boolean | undefined>;

function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

interface RetrievalErrorBody {
  error?: string;
  detail?: string;
}
interface AssistantBody<T> {
  message?: { success: boolean; data: T; error?: { type: string; message: string } };
}

async function send(method: string, url: string, body?: BodyInit | object): Promise<Response> {
  const isJson = body !== undefined && !(body instanceof FormData);
  const response = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers: { Accept: 'application/json', ...(isJson ? { 'Content-Type': 'application/json' } : {}) },
    body: body === undefined ? undefined : isJson ? JSON.stringify(body) : (body as FormData),
  });
  if (response.status === 401) onSignedOut();
  return response;
}

/** A Retrieval API call (`/api/v1…`); its JSON answer, or an ApiError with the API's detail. */
export async function retrieval<T>(
  method: string,
  path: string,
  options: { query?: Query; body?: FormData | object } = {},
): Promise<T> {
  const response = await send(method, withQuery(`/api/v1${path}`, options.query), options.body);
  const body = (await response.json().catch(() => ({}))) as T & RetrievalErrorBody;
  if (!response.ok) {
    throw new ApiError(response.status, body.error ?? 'error', body.detail ?? response.statusText);
  }
  return body;
}

/** An Assistant API call (`/api/method/assistant.api.<endpoint>`); the envelope's data. */
export async function assistant<T>(
  method: string,
  endpoint: string,
  options: { query?: Query; body?: object } = {},
): Promise<{ status: number; data: T }> {
  const response = await send(
    method,
    withQuery(`/api/method/assistant.api.${endpoint}`, options.query),
    options.body,
  );
  const body = (await response.json().catch(() => ({}))) as AssistantBody<T>;
  const message = body.message;
  if (!response.ok || !message?.success) {
    throw new ApiError(
      response.status,
      message?.error?.type ?? 'error',
      message?.error?.message ?? response.statusText,
    );
  }
  return { status: response.status, data: message.data };
}

export interface Me {
  name: string;
  admin: boolean;
}

export async function signIn(user: string, password: string): Promise<Me> {
  const response = await fetch('/api/method/login', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ usr: user, pwd: password }),
  });
  const body = (await response.json().catch(() => ({}))) as AssistantBody<{ user: string; admin: boolean }>;
  if (!response.ok || !body.message?.success) {
    throw new ApiError(
      response.status,
      body.message?.error?.type ?? 'error',
      body.message?.error?.message ?? 'Sign-in failed',
    );
  }
  return { name: body.message.data.user, admin: body.message.data.admin };
}

export async function signOut(): Promise<void> {
  await fetch('/api/method/logout', { method: 'POST', credentials: 'same-origin' });
}

/** Who is signed in, or null when no session is. */
export async function whoAmI(): Promise<Me | null> {
  const response = await fetch('/api/method/assistant.api.get_config', {
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) return null;
  const body = (await response.json()) as AssistantBody<{ user: Me }>;
  return body.message?.data.user ?? null;
}

/** A message a person can read for anything thrown. */
export const describeError = (error: unknown): string =>
  error instanceof ApiError
    ? `${error.message} (${error.status} ${error.type})`
    : error instanceof Error
      ? error.message
      : String(error);
