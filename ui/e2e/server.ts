// Starting and stopping a real `servicedesk serve` for the e2e tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The ui/ directory (this file lives in ui/e2e). */
export const UI_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function backendBinary(): string {
  return resolve(UI_DIR, process.env.SERVICEDESK_BIN ?? '../target/debug/servicedesk');
}

/**
 * The CSRF token every server the e2e tests start uses (SERVICEDESK_CSRF_TOKEN),
 * so api calls made outside a page (Playwright's request context) can carry
 * it. Pages get it from the served index.html, as in production.
 */
export const E2E_CSRF = 'e2e-csrf-token-0123456789';

/** Headers for api calls made outside a page. */
export const API_HEADERS = { 'X-CSRF-Token': E2E_CSRF };

export interface RunningServer {
  url: string;
  dataDir: string;
  child: ChildProcess;
  logFile: string;
}

/** Spawns the backend on a free port and resolves once it prints its address. */
export async function startServer(extraArgs: string[] = [], dataDir?: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const bin = backendBinary();
  if (!existsSync(bin)) {
    throw new Error(`backend binary not found at ${bin}: run \`cargo build --bin servicedesk\` in the repo root, or set SERVICEDESK_BIN`);
  }
  const distIndex = join(UI_DIR, 'dist', 'index.html');
  if (!existsSync(distIndex) || !readFileSync(distIndex, 'utf8').includes('id="root"')) {
    throw new Error(`the UI is not built (${distIndex}): run \`npm run build\` first`);
  }
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'servicedesk-e2e-'));
  const logFile = join(dir, 'server.log');
  const log = openSync(logFile, 'a');
  const child = spawn(bin, ['--data-dir', dir, 'serve', '--port', '0', '--ui-dir', 'dist', ...extraArgs], {
    cwd: UI_DIR,
    stdio: ['ignore', 'pipe', log],
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn', SERVICEDESK_CSRF_TOKEN: E2E_CSRF, ...env },
  });

  const url = await new Promise<string>((resolveUrl, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`servicedesk did not print its address within 20 s; log: ${logFile}`));
    }, 20_000);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`servicedesk exited at start (code ${code}, signal ${signal}); log: ${logFile}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buffered);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolveUrl(m[1]);
      }
    });
  });
  // Keep draining stdout so the server can never block on a full pipe.
  child.stdout!.resume();
  return { url, dataDir: dir, child, logFile };
}

/** Stops a server by its pid: SIGTERM, then SIGKILL if it lingers. */
export async function stopPid(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}
