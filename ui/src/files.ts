// Bytes <-> base64 for uploads and previews, and small formatting helpers.

import { getLocale, t } from './i18n';

/** The backend's per-file limit (README: "up to 32 MiB each"). */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;

// A multiple of 3, so every chunk encodes to base64 without padding in the
// middle and the pieces can simply be concatenated. Small enough for
// String.fromCharCode.apply's argument limit.
const CHUNK = 3 * 8192;

/** Base64 of any byte array, chunk by chunk (safe for 32 MiB files). */
export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += CHUNK) {
    const slice = bytes.subarray(i, Math.min(i + CHUNK, bytes.length));
    parts.push(btoa(String.fromCharCode.apply(null, slice as unknown as number[])));
  }
  return parts.join('');
}

export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function dataUrl(mime: string, contentBase64: string): string {
  return `data:${mime};base64,${contentBase64}`;
}

/** Reads a File (or Blob) with progress, resolving to its bytes. */
export function readFileBytes(
  file: Blob,
  onProgress?: (fraction: number) => void,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onprogress = (ev) => {
      if (onProgress && ev.lengthComputable && ev.total > 0) onProgress(ev.loaded / ev.total);
    };
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.onabort = () => reject(new Error('reading the file was aborted'));
    reader.onload = () => {
      onProgress?.(1);
      resolve(new Uint8Array(reader.result as ArrayBuffer));
    };
    reader.readAsArrayBuffer(file);
  });
}

export async function readFileBase64(
  file: Blob,
  onProgress?: (fraction: number) => void,
): Promise<string> {
  return bytesToBase64(await readFileBytes(file, onProgress));
}

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/**
 * EXIF capture time as the camera recorded it (its local wall clock), with
 * its UTC offset when known. It is deliberately not converted to this
 * computer's zone: the technician wants the time shown on the camera.
 */
export function formatTakenAt(takenAt: string | null | undefined): string {
  if (!takenAt) return t('files.notRecorded');
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.exec(takenAt);
  if (!m) return takenAt;
  const [, date, time, zone] = m;
  if (!zone) return `${date} ${time} (${t('files.cameraTime')})`;
  return `${date} ${time} (UTC${zone === 'Z' ? '' : zone.replace('-', '−')})`;
}

/** A backend RFC 3339 timestamp in this computer's local time. */
export function formatTimestamp(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  // In the interface language (dates read like the rest of the screen).
  return d.toLocaleString(getLocale(), {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** Starts a browser download of `data` as a file. */
export function downloadBlob(data: Blob, fileName: string): void {
  const url = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Give the browser time to start the download before the URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A safe file name fragment. */
export function slug(text: string, max = 40): string {
  const s = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return s || 'session';
}
