import { describe, expect, it } from 'vitest';
import {
  base64ToBytes,
  bytesToBase64,
  formatBytes,
  formatTakenAt,
  readFileBase64,
  slug,
} from './files';

function pseudoRandomBytes(n: number, seed = 7): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe('bytesToBase64', () => {
  it('matches Node for sizes around the chunk boundary and for every byte value', () => {
    const chunk = 3 * 8192;
    for (const n of [0, 1, 2, 3, 4, 255, chunk - 1, chunk, chunk + 1, chunk * 2 + 2, 100_001]) {
      const bytes = pseudoRandomBytes(n, n + 1);
      expect(bytesToBase64(bytes), `size ${n}`).toBe(Buffer.from(bytes).toString('base64'));
    }
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(bytesToBase64(all)).toBe(Buffer.from(all).toString('base64'));
  });

  it('handles a full 32 MiB file (no argument-count or stack limits)', () => {
    const bytes = pseudoRandomBytes(32 * 1024 * 1024);
    const b64 = bytesToBase64(bytes);
    expect(b64.length).toBe(Math.ceil(bytes.length / 3) * 4);
    // Spot-check the tail, where a wrong chunk join would show.
    const expected = Buffer.from(bytes).toString('base64');
    expect(b64.slice(-4096)).toBe(expected.slice(-4096));
    expect(b64 === expected).toBe(true);
  }, 60_000);

  it('round-trips through base64ToBytes', () => {
    const bytes = pseudoRandomBytes(12_345);
    expect(Array.from(base64ToBytes(bytesToBase64(bytes)))).toEqual(Array.from(bytes));
  });
});

describe('readFileBase64', () => {
  it('reads a File and reports progress up to 1', async () => {
    const bytes = pseudoRandomBytes(70_000);
    const file = new File([bytes as BlobPart], 'x.jpg', { type: 'image/jpeg' });
    const progress: number[] = [];
    const b64 = await readFileBase64(file, (f) => progress.push(f));
    expect(b64).toBe(Buffer.from(bytes).toString('base64'));
    expect(progress.at(-1)).toBe(1);
  });
});

describe('formatting', () => {
  it('formats EXIF capture times in camera time, with the offset when known', () => {
    expect(formatTakenAt('2026-11-20T09:41:07-07:00')).toBe('2026-11-20 09:41:07 (UTC−07:00)');
    expect(formatTakenAt('2026-11-20T09:41:07+05:30')).toBe('2026-11-20 09:41:07 (UTC+05:30)');
    expect(formatTakenAt('2026-11-20T09:41:07Z')).toBe('2026-11-20 09:41:07 (UTC)');
    expect(formatTakenAt('2026-10-03T14:05:59')).toBe('2026-10-03 14:05:59 (camera time, no zone)');
    expect(formatTakenAt(null)).toBe('Not recorded');
    expect(formatTakenAt('garbage')).toBe('garbage');
  });

  it('formats sizes', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(17_333)).toBe('16.9 KiB');
    expect(formatBytes(32 * 1024 * 1024)).toBe('32.0 MiB');
  });

  it('makes file-name-safe slugs', () => {
    expect(slug('Furnace blows COLD air!')).toBe('furnace-blows-cold-air');
    expect(slug('Печка не греет')).toBe('печка-не-греет');
    expect(slug('Café crème')).toBe('cafe-creme');
    expect(slug('../../etc/passwd')).toBe('etc-passwd');
    expect(slug('***')).toBe('session');
  });
});
