import { useEffect, useState } from 'react';
import { api, type Artifact } from './api';
import { dataUrl } from './files';
import { type ApiError, toApiError } from './transport';

/** `value`, but only after it stopped changing for `delayMs`. */
export function useDebounced<T>(value: T, delayMs: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(t);
  }, [value, delayMs]);
  return debounced;
}

export type ThumbState = { kind: 'loading' } | { kind: 'ok'; url: string } | { kind: 'error'; error: ApiError };

/** An artifact's thumbnail as a data URL, loaded (and verified by the core) once per artifact. */
export function useThumbnail(artifact: Pick<Artifact, 'id' | 'thumbnail'>): ThumbState {
  const [thumb, setThumb] = useState<ThumbState>({ kind: 'loading' });
  useEffect(() => {
    if (artifact.thumbnail === 'none') return;
    let alive = true;
    setThumb({ kind: 'loading' });
    api.artifactContent(artifact.id, true).then(
      (c) => alive && setThumb({ kind: 'ok', url: dataUrl(c.mime, c.content_base64) }),
      (e) => alive && setThumb({ kind: 'error', error: toApiError(e) }),
    );
    return () => {
      alive = false;
    };
  }, [artifact.id, artifact.thumbnail]);
  return thumb;
}
