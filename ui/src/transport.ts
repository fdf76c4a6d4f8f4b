// The ONE module that talks to the backend.
//
// Inside the Tauri app every command goes through the single IPC command
// `api` (`invoke('api', { command, payload })`). In a browser (served by
// `servicedesk serve`) it is `POST /api/{command}` with the payload as the
// JSON body, `X-CSRF-Token` from the served page's meta tag, plus
// `Authorization: Bearer T` when the page was opened with `?token=T`. Both paths fail with an `ApiError { code, message }` built from
// the backend's `AppError` JSON, so callers never care which path ran.

import { invoke } from '@tauri-apps/api/core';
import type { Command, Commands } from './gen/commands';
import type { SearchQuery } from './gen/models';
import { t } from './i18n';

/** Codes the transport itself produces (the backend's are listed in docs/api.md). */
export const TRANSPORT_CODES = {
  /** The backend could not be reached at all (HTTP path). */
  network: 'network',
  /** The backend answered something that is not the agreed JSON. */
  badResponse: 'bad_response',
  /** Tauri rejected with something other than an AppError (e.g. an IPC failure). */
  ipc: 'ipc',
} as const;

export class ApiError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }

  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** Any thrown value as an ApiError (for showing it to a person). */
export function toApiError(e: unknown, fallbackCode = 'internal'): ApiError {
  if (e instanceof ApiError) return e;
  if (isAppErrorShape(e)) return new ApiError(e.code, e.message);
  if (e instanceof Error) return new ApiError(fallbackCode, e.message);
  if (typeof e === 'string') return new ApiError(fallbackCode, e);
  return new ApiError(fallbackCode, safeStringify(e));
}

function isAppErrorShape(v: unknown): v is { code: string; message: string } {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { code?: unknown }).code === 'string' &&
    typeof (v as { message?: unknown }).message === 'string'
  );
}

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** True inside the Tauri webview (its IPC bridge is injected before our code runs). */
export function isTauri(): boolean {
  return typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;
}

export type TransportKind = 'tauri-ipc' | 'http';

export function transportKind(): TransportKind {
  return isTauri() ? 'tauri-ipc' : 'http';
}

const TOKEN_STORAGE_KEY = 'servicedesk.token';

/**
 * The bearer token for the HTTP path: `?token=T` in the page URL. It is also
 * remembered for this browser tab so that it survives in-app navigation.
 */
export function bearerToken(): string | null {
  if (typeof window === 'undefined') return null;
  const fromUrl = new URLSearchParams(window.location.search).get('token');
  if (fromUrl) {
    try {
      window.sessionStorage.setItem(TOKEN_STORAGE_KEY, fromUrl);
    } catch {
      // storage unavailable: the URL still carries it
    }
    return fromUrl;
  }
  try {
    return window.sessionStorage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return null;
  }
}

/**
 * The server's per-launch CSRF token, from the page it served
 * (`<meta name="servicedesk-csrf">`). Every HTTP api call carries it in
 * `X-CSRF-Token`; the server refuses calls without it.
 */
export function csrfToken(): string | null {
  if (typeof document === 'undefined') return null;
  const meta = document.querySelector('meta[name="servicedesk-csrf"]');
  return meta?.getAttribute('content') || null;
}

/** The headers every HTTP request to the backend carries. */
function backendHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const token = bearerToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  const csrf = csrfToken();
  if (csrf) headers['X-CSRF-Token'] = csrf;
  return headers;
}

// ---- the command contract (generated from the Rust types: gen/commands.ts, gen/models.ts) ----

/** knowledge_ask's `filters`: a search's filters; the backend searches for the question itself. */
export type SearchFilters = Omit<SearchQuery, 'query'>;

/** What `call` accepts for a command: the request type the Rust command table declares. */
export type CommandRequest<C extends Command> = Commands[C]['request'];

export type CommandResponse<C extends Command> = Commands[C]['response'];

/**
 * Run one backend command. The request and the answer are the types the Rust
 * command table declares, so a wrong payload or a wrong use of the answer is a
 * compile error.
 */
export function call<C extends Command>(command: C, request: CommandRequest<C>): Promise<CommandResponse<C>> {
  return isTauri() ? callTauri<CommandResponse<C>>(command, request) : callHttp<CommandResponse<C>>(command, request);
}

async function callTauri<T>(command: string, payload: object): Promise<T> {
  try {
    return await invoke<T>('api', { command, payload });
  } catch (e) {
    // The shell rejects with the AppError object; anything else is an IPC failure.
    throw toApiError(e, TRANSPORT_CODES.ipc);
  }
}

async function callHttp<T>(command: string, payload: object): Promise<T> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    ...backendHeaders(),
  };

  let response: Response;
  try {
    response = await fetch(`/api/${encodeURIComponent(command)}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(payload),
    });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new ApiError(
      TRANSPORT_CODES.network,
      t('transport.unreachable', { what: command, why }),
    );
  }

  let text: string;
  try {
    text = await response.text();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new ApiError(TRANSPORT_CODES.network, t('transport.broke', { what: command, why }));
  }

  let body: unknown = undefined;
  let parsed = false;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
      parsed = true;
    } catch {
      parsed = false;
    }
  }

  if (!response.ok) {
    if (parsed && isAppErrorShape(body)) throw new ApiError(body.code, body.message);
    // Not an AppError (e.g. a proxy, or the body-size limit answering in plain text).
    const detail = text.trim().slice(0, 300) || response.statusText || 'no details';
    throw new ApiError(httpStatusCode(response.status), t('transport.http', { what: command, status: response.status, detail }));
  }
  if (!parsed) {
    throw new ApiError(TRANSPORT_CODES.badResponse, t('transport.badJson', { what: command }));
  }
  return body as T;
}

/** A code for a non-2xx answer that carried no AppError. */
function httpStatusCode(status: number): string {
  switch (status) {
    case 401:
      return 'unauthorized';
    case 404:
      return 'not_found';
    case 413:
      return 'too_large';
    default:
      return `http_${status}`;
  }
}

/** GET a file the server offers for download (a path like /exports/…), with the bearer token when there is one. */
export async function fetchDownload(path: string): Promise<Blob> {
  const headers = backendHeaders();
  let response: Response;
  try {
    response = await fetch(path, { method: 'GET', headers });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new ApiError(TRANSPORT_CODES.network, t('transport.unreachable', { what: path, why }));
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    if (isAppErrorShape(body)) throw new ApiError(body.code, body.message);
    throw new ApiError(httpStatusCode(response.status), t('transport.http', { what: path, status: response.status, detail: text.trim().slice(0, 300) || response.statusText }));
  }
  return response.blob();
}
