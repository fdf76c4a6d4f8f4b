import { useEffect, useRef, useState, type RefObject } from 'react';
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

/**
 * True once the element has come near the viewport (and from then on), so a
 * long gallery loads only the thumbnails someone scrolls to. Without
 * IntersectionObserver (old webviews, jsdom) everything counts as seen.
 */
export function useSeen<T extends Element>(margin = '200px'): [RefObject<T>, boolean] {
  const ref = useRef<T>(null);
  const [seen, setSeen] = useState(() => typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    if (seen || !ref.current) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          setSeen(true);
          io.disconnect();
        }
      },
      { rootMargin: margin },
    );
    io.observe(ref.current);
    return () => io.disconnect();
  }, [seen, margin]);
  return [ref, seen];
}

/** An artifact's thumbnail as a data URL, loaded (and verified by the core) once per artifact; not before `enabled`. */
export function useThumbnail(artifact: Pick<Artifact, 'id' | 'thumbnail'>, enabled = true): ThumbState {
  const [thumb, setThumb] = useState<ThumbState>({ kind: 'loading' });
  useEffect(() => {
    if (artifact.thumbnail === 'none' || !enabled) return;
    let alive = true;
    setThumb({ kind: 'loading' });
    api.artifactContent(artifact.id, true).then(
      (c) => alive && setThumb({ kind: 'ok', url: dataUrl(c.mime, c.content_base64) }),
      (e) => alive && setThumb({ kind: 'error', error: toApiError(e) }),
    );
    return () => {
      alive = false;
    };
  }, [artifact.id, artifact.thumbnail, enabled]);
  return thumb;
}

/**
 * Whether a CSS media query matches now, following changes. Without
 * matchMedia (jsdom, very old webviews) it is `fallback`.
 */
export function useMediaQuery(query: string, fallback = true): boolean {
  const get = () => (typeof window !== 'undefined' && typeof window.matchMedia === 'function' ? window.matchMedia(query).matches : fallback);
  const [matches, setMatches] = useState(get);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const mq = window.matchMedia(query);
    const onChange = () => setMatches(mq.matches);
    onChange();
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, [query]);
  return matches;
}
