import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendBinary, startServer } from './server';

// Starts one backend for the whole run. Values set on process.env here are
// inherited by the test workers (and seen by global-teardown.ts).
// A fresh data dir holds no demo data, so the billing specs' rules and
// orders are loaded explicitly, as a person would (`billing seed-demo`).
export default async function globalSetup(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'servicedesk-e2e-'));
  execFileSync(backendBinary(), ['--data-dir', dataDir, 'billing', 'seed-demo'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const server = await startServer([], dataDir);
  process.env.SERVICEDESK_E2E_URL = server.url;
  process.env.SERVICEDESK_E2E_DATA_DIR = server.dataDir;
  process.env.SERVICEDESK_E2E_PID = String(server.child.pid);
  // The child must not keep the runner alive on its own.
  server.child.unref();
  console.log(`[e2e] servicedesk at ${server.url}, data dir ${server.dataDir} (billing demo data loaded)`);
}
