import { startServer } from './server';

// Starts one backend for the whole run. Values set on process.env here are
// inherited by the test workers (and seen by global-teardown.ts).
export default async function globalSetup(): Promise<void> {
  const server = await startServer();
  process.env.SERVICEDESK_E2E_URL = server.url;
  process.env.SERVICEDESK_E2E_DATA_DIR = server.dataDir;
  process.env.SERVICEDESK_E2E_PID = String(server.child.pid);
  // The child must not keep the runner alive on its own.
  server.child.unref();
  console.log(`[e2e] servicedesk at ${server.url}, data dir ${server.dataDir}`);
}
