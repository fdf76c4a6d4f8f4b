import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, call, fetchDownload, isTauri, toApiError, transportKind } from './transport';

type TauriWindow = Window & { __TAURI_INTERNALS__?: { invoke: ReturnType<typeof vi.fn> } };
const w = window as TauriWindow;

/** The error a call failed with (fails the test if it succeeded). */
async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('expected the call to fail');
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

beforeEach(() => {
  window.history.replaceState(null, '', '/');
  window.sessionStorage.clear();
  delete w.__TAURI_INTERNALS__;
});

afterEach(() => {
  vi.unstubAllGlobals();
  delete w.__TAURI_INTERNALS__;
});

describe('HTTP transport', () => {
  it('POSTs the payload as JSON to /api/{command} and returns the parsed body', async () => {
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse(200, { sessions: [] }));
    vi.stubGlobal('fetch', fetchMock);

    const out = await call('session_list', { query: 'furnace' });

    expect(out).toEqual({ sessions: [] });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe('/api/session_list');
    expect(init.method).toBe('POST');
    expect(JSON.parse(init.body)).toEqual({ query: 'furnace' });
    expect(init.headers['Content-Type']).toBe('application/json');
    expect(init.headers.Authorization).toBeUndefined();
    expect(isTauri()).toBe(false);
    expect(transportKind()).toBe('http');
  });

  it('sends an empty object for a command without a request', async () => {
    const fetchMock = vi.fn().mockResolvedValue(jsonResponse(200, { name: 'RV Service Desk' }));
    vi.stubGlobal('fetch', fetchMock);
    await call('app_info', {});
    expect(fetchMock.mock.calls[0][1].body).toBe('{}');
  });

  it('sends Authorization: Bearer T when the page has ?token=T, and keeps it for the tab', async () => {
    const fetchMock = vi.fn().mockImplementation(async () => jsonResponse(200, {}));
    vi.stubGlobal('fetch', fetchMock);
    window.history.replaceState(null, '', '/?token=s3cr%20et');
    await call('app_info', {});
    expect(fetchMock.mock.calls[0][1].headers.Authorization).toBe('Bearer s3cr et');

    // The token survives the query string going away (in-app navigation).
    window.history.replaceState(null, '', '/');
    await call('app_info', {});
    expect(fetchMock.mock.calls[1][1].headers.Authorization).toBe('Bearer s3cr et');
  });

  it('sends the CSRF token the served page carries on every call and download', async () => {
    const fetchMock = vi.fn().mockImplementation(async (url: string) =>
      url.startsWith('/exports/') ? new Response('zip', { status: 200 }) : jsonResponse(200, {}),
    );
    vi.stubGlobal('fetch', fetchMock);
    await call('app_info', {});
    expect(fetchMock.mock.calls[0][1].headers['X-CSRF-Token']).toBeUndefined();

    const meta = document.createElement('meta');
    meta.name = 'servicedesk-csrf';
    meta.content = 'per-launch-token';
    document.head.appendChild(meta);
    try {
      await call('session_list', {});
      expect(fetchMock.mock.calls[1][1].headers['X-CSRF-Token']).toBe('per-launch-token');
      expect(fetchMock.mock.calls[1][1].headers['Content-Type']).toBe('application/json');
      await fetchDownload('/exports/r.zip');
      expect(fetchMock.mock.calls[2][1].headers['X-CSRF-Token']).toBe('per-launch-token');
    } finally {
      meta.remove();
    }
  });

  it('throws ApiError with the AppError code and message of a non-2xx answer', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn().mockResolvedValue(
        jsonResponse(409, { code: 'has_artifacts', message: 'session x has 2 photo(s)/file(s)' }),
      ),
    );
    const err = await failure(call('session_delete', { session_id: 'x' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('has_artifacts');
    expect(err.message).toBe('session x has 2 photo(s)/file(s)');
    expect(String(err)).toBe('has_artifacts: session x has 2 photo(s)/file(s)');
  });

  it('maps a non-2xx answer without an AppError body (e.g. the body limit) to a readable ApiError', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(new Response('length limit exceeded', { status: 413 })));
    const err = await failure(call('artifact_upload', { session_id: 's1', file_name: 'big.jpg', content_base64: 'AAAA' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('too_large');
    expect(err.message).toContain('HTTP 413');
    expect(err.message).toContain('length limit exceeded');
  });

  it('reports a network failure as code "network"', async () => {
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));
    const err = await failure(call('app_info', {}));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('network');
    expect(err.message).toContain('Failed to fetch');
  });

  it('refuses a 2xx answer that is not JSON', async () => {
    vi.stubGlobal('fetch', vi.fn().mockResolvedValue(new Response('<html>', { status: 200 })));
    const err = await failure(call('app_info', {}));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('bad_response');
  });
});

describe('Tauri transport', () => {
  it("uses invoke('api', { command, payload }) when __TAURI_INTERNALS__ exists, never fetch", async () => {
    const invoke = vi.fn().mockResolvedValue({ id: 's1', complaint: 'x' });
    w.__TAURI_INTERNALS__ = { invoke };
    const fetchMock = vi.fn();
    vi.stubGlobal('fetch', fetchMock);
    window.history.replaceState(null, '', '/?token=ignored');

    const out = await call('session_new', { complaint: 'x' });

    expect(isTauri()).toBe(true);
    expect(transportKind()).toBe('tauri-ipc');
    expect(out).toEqual({ id: 's1', complaint: 'x' });
    expect(invoke).toHaveBeenCalledTimes(1);
    expect(invoke.mock.calls[0][0]).toBe('api');
    expect(invoke.mock.calls[0][1]).toEqual({ command: 'session_new', payload: { complaint: 'x' } });
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('passes {} as the payload of a command without a request', async () => {
    const invoke = vi.fn().mockResolvedValue({});
    w.__TAURI_INTERNALS__ = { invoke };
    await call('app_info', {});
    expect(invoke.mock.calls[0][1]).toEqual({ command: 'app_info', payload: {} });
  });

  it('turns the AppError object Tauri rejects with into an ApiError', async () => {
    w.__TAURI_INTERNALS__ = {
      invoke: vi.fn().mockRejectedValue({ code: 'not_found', message: 'session nope not found' }),
    };
    const err = await failure(call('session_show', { session_id: 'nope' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('not_found');
    expect(err.message).toBe('session nope not found');
  });

  it('reports a non-AppError rejection (an IPC failure) as code "ipc"', async () => {
    w.__TAURI_INTERNALS__ = {
      invoke: vi.fn().mockRejectedValue('invalid args `payload` for command `api`'),
    };
    const err = await failure(call('app_info', {}));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('ipc');
    expect(err.message).toContain('invalid args');
  });
});

describe('toApiError', () => {
  it('keeps ApiErrors, adopts AppError shapes and wraps everything else', () => {
    const e = new ApiError('storage', 'disk full');
    expect(toApiError(e)).toBe(e);
    expect(toApiError({ code: 'too_large', message: 'big' })).toMatchObject({ code: 'too_large', message: 'big' });
    expect(toApiError(new Error('boom'))).toMatchObject({ code: 'internal', message: 'boom' });
    expect(toApiError('text', 'ipc')).toMatchObject({ code: 'ipc', message: 'text' });
    expect(toApiError({ weird: 1 })).toMatchObject({ code: 'internal', message: '{"weird":1}' });
  });
});
