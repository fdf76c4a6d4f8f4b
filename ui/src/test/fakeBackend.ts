// A stand-in for `servicedesk serve` in unit tests: stubs fetch and answers
// POST /api/{command} from handlers. A handler throws { code, message } (an
// AppError) to answer with an error status, like the real server.
import { vi } from 'vitest';

export type Handler = (payload: any) => unknown | Promise<unknown>;

export interface FakeBackend {
  calls: { command: string; payload: any }[];
  callsOf(command: string): any[];
}

const STATUS: Record<string, number> = { not_found: 404, has_artifacts: 409, too_large: 413, artifact_missing: 410, artifact_corrupt: 410 };

export function installFakeBackend(handlers: Record<string, Handler>): FakeBackend {
  const calls: { command: string; payload: any }[] = [];
  const fetchMock = vi.fn(async (url: string, init: RequestInit) => {
    const command = decodeURIComponent(String(url).replace(/^.*\/api\//, ''));
    const payload = init.body ? JSON.parse(String(init.body)) : null;
    calls.push({ command, payload });
    const handler = handlers[command];
    if (!handler) {
      return json(400, { code: 'unknown_command', message: `unknown command "${command}"` });
    }
    try {
      return json(200, await handler(payload));
    } catch (e: any) {
      if (e && typeof e.code === 'string') return json(STATUS[e.code] ?? 400, { code: e.code, message: e.message });
      throw e;
    }
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    callsOf: (command) => calls.filter((c) => c.command === command).map((c) => c.payload),
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

export function appError(code: string, message: string) {
  return { code, message };
}

let n = 0;
export function makeSession(over: Record<string, unknown> = {}) {
  n++;
  return {
    id: `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`,
    created_at: '2026-11-22T19:11:36.828Z',
    updated_at: '2026-11-22T19:11:36.828Z',
    status: 'open',
    language: 'en',
    customer: null,
    complaint: `complaint ${n}`,
    technician: null,
    unit: { vin: null, plate: null, make_model: null, odometer: null, engine_hours: null },
    turn_count: 0,
    artifact_count: 0,
    ...over,
  };
}

export function makeArtifact(sessionId: string, over: Record<string, unknown> = {}) {
  n++;
  return {
    id: `a${n}`,
    session_id: sessionId,
    turn_id: null,
    sha256: 'ab'.repeat(32),
    file_name: `IMG_${n}.jpg`,
    mime: 'image/jpeg',
    kind: 'image',
    size_bytes: 17333,
    caption: null,
    taken_at: null,
    width: 640,
    height: 480,
    thumbnail: 'generated',
    created_at: '2026-11-22T19:11:41.991Z',
    ...over,
  };
}
