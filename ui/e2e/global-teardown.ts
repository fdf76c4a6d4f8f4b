import { rmSync } from 'node:fs';
import { stopPid } from './server';

export default async function globalTeardown(): Promise<void> {
  const pid = Number(process.env.SERVICEDESK_E2E_PID);
  if (pid > 0) await stopPid(pid);
  const dir = process.env.SERVICEDESK_E2E_DATA_DIR;
  if (dir && !process.env.SERVICEDESK_E2E_KEEP) rmSync(dir, { recursive: true, force: true });
}
