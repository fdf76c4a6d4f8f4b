// The loopback test portal (`cargo run --example test_portal`), for the
// sync tests: started on a free port, with its control endpoints.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UI_DIR } from './server';

export function portalBinary(): string {
  return resolve(UI_DIR, process.env.TEST_PORTAL_BIN ?? '../target/debug/examples/test_portal');
}

/** Why the portal tests cannot run here, or null when they can. */
export function portalMissing(): string | null {
  const bin = portalBinary();
  return existsSync(bin)
    ? null
    : `the test portal is not built (${bin}): run \`cargo build --example test_portal\` in the repo root, or set TEST_PORTAL_BIN`;
}

export interface TestPortal {
  url: string;
  token: string;
  child: ChildProcess;
  stats(): Promise<any>;
  control(what: 'faults' | 'token' | 'offline' | 'seed_report', body: object): Promise<any>;
  stop(): void;
}

export async function startPortal(args: string[] = []): Promise<TestPortal> {
  const child = spawn(portalBinary(), ['--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { url, token } = await new Promise<{ url: string; token: string }>((ok, fail) => {
    let buf = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error('the test portal did not print its address within 20 s'));
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the test portal exited at start (code ${code})`));
    });
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      const m = /listening (http:\/\/127\.0\.0\.1:\d+) token (\S+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        ok({ url: m[1], token: m[2] });
      }
    });
  });
  child.stdout!.resume();
  return {
    url,
    token,
    child,
    stats: async () => (await fetch(`${url}/control/stats`)).json(),
    control: async (what, body) =>
      (await fetch(`${url}/control/${what}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json(),
    stop: () => {
      child.kill('SIGTERM');
    },
  };
}
