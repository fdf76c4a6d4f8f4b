import { useEffect, useRef, useState } from 'react';
import { api, type Artifact, type ArtifactContent } from '../api';
import { base64ToBytes, dataUrl, downloadBlob, formatBytes, formatTakenAt, formatTimestamp } from '../files';
import { toApiError, type ApiError } from '../transport';
import { artifactProblemLabel, ErrorCodeDetails } from './common';
import { errorAdvice } from '../errors';
import { t } from '../i18n';

/** Formats a webview can show natively. HEIC/HEIF have no decoder in browsers. */
const DISPLAYABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/bmp']);

type Full = { kind: 'loading' } | { kind: 'ok'; content: ArtifactContent } | { kind: 'error'; error: ApiError };

export function PhotoOverlay({
  artifact,
  position,
  onNavigate,
  onClose,
}: {
  artifact: Artifact;
  position: { index: number; count: number };
  onNavigate: (delta: number) => void;
  onClose: () => void;
}) {
  const [full, setFull] = useState<Full>({ kind: 'loading' });
  const [preview, setPreview] = useState<string | null>(null);
  const [previewError, setPreviewError] = useState<ApiError | null>(null);
  const [imgFailed, setImgFailed] = useState(false);
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    let alive = true;
    setFull({ kind: 'loading' });
    setPreview(null);
    setPreviewError(null);
    setImgFailed(false);
    api.artifactContent(artifact.id, false).then(
      (content) => alive && setFull({ kind: 'ok', content }),
      (e) => alive && setFull({ kind: 'error', error: toApiError(e) }),
    );
    return () => {
      alive = false;
    };
  }, [artifact.id]);

  const displayable = artifact.kind === 'image' && DISPLAYABLE.has(artifact.mime) && !imgFailed;

  // Photos the webview cannot decode (HEIC) are shown by their thumbnail.
  useEffect(() => {
    if (displayable || artifact.thumbnail === 'none') return;
    let alive = true;
    api.artifactContent(artifact.id, true).then(
      (c) => alive && setPreview(dataUrl(c.mime, c.content_base64)),
      (e) => alive && setPreviewError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, [artifact.id, artifact.thumbnail, displayable]);

  useEffect(() => {
    closeButton.current?.focus();
    function onKey(e: KeyboardEvent) {
      if (e.key === 'Escape') onClose();
      else if (e.key === 'ArrowRight' && position.count > 1) onNavigate(1);
      else if (e.key === 'ArrowLeft' && position.count > 1) onNavigate(-1);
    }
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose, onNavigate, position.count]);

  function downloadOriginal() {
    if (full.kind !== 'ok') return;
    const bytes = base64ToBytes(full.content.content_base64);
    downloadBlob(new Blob([bytes as BlobPart], { type: full.content.mime }), artifact.file_name);
  }

  return (
    <div
      className="overlay-backdrop"
      data-testid="photo-overlay"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div className="overlay" role="dialog" aria-modal="true" aria-label={t('overlay.label', { name: artifact.file_name })}>
        <div className="overlay-media">
          {full.kind === 'loading' && <div className="thumb-loading big" aria-label={t('overlay.loading')} />}
          {full.kind === 'error' && (
            <div className="overlay-problem" role="alert" data-testid="overlay-error" data-code={full.error.code}>
              <span className="problem-badge large">{artifactProblemLabel(full.error.code)}</span>
              <p>{errorAdvice(full.error.code)}</p>
              <p>{full.error.message}</p>
              <ErrorCodeDetails code={full.error.code} />
            </div>
          )}
          {full.kind === 'ok' && displayable && (
            <img
              src={dataUrl(full.content.mime, full.content.content_base64)}
              alt={artifact.caption ?? artifact.file_name}
              data-testid="overlay-image"
              onError={() => setImgFailed(true)}
            />
          )}
          {full.kind === 'ok' && !displayable && (
            <div className="overlay-nopreview" data-testid="overlay-nopreview">
              {preview && <img src={preview} alt="" className="preview-thumb" />}
              {previewError && (
                <p className="overlay-problem-inline" role="alert" data-code={previewError.code}>
                  {t('overlay.previewUnavailable')} {previewError.message} <ErrorCodeDetails code={previewError.code} />
                </p>
              )}
              <p>
                {artifact.kind === 'document'
                  ? t('overlay.noDocPreview')
                  : t('overlay.cannotDisplay', { mime: artifact.mime })}{' '}
                {t('overlay.useDownload')}
              </p>
            </div>
          )}
        </div>
        <aside className="overlay-info">
          <div className="overlay-top">
            <span className="muted">
              {t('overlay.position', { i: position.index + 1, n: position.count })}
            </span>
            <button ref={closeButton} type="button" className="btn" data-testid="overlay-close" onClick={onClose} aria-label={t('common.close')}>
              {t('common.close')} ✕
            </button>
          </div>
          <h3 className="overlay-caption" data-testid="overlay-caption">
            {artifact.caption ?? <span className="muted">{t('overlay.noCaption')}</span>}
          </h3>
          <dl className="facts">
            <dt>{t('overlay.file')}</dt>
            <dd data-testid="overlay-file-name">{artifact.file_name}</dd>
            <dt>{t('overlay.taken')}</dt>
            <dd data-testid="overlay-taken-at" title={artifact.taken_at ?? undefined}>
              {formatTakenAt(artifact.taken_at)}
            </dd>
            <dt>{t('overlay.size')}</dt>
            <dd data-testid="overlay-size">
              {formatBytes(artifact.size_bytes)}
              {artifact.width && artifact.height ? ` · ${artifact.width}×${artifact.height}` : ''}
            </dd>
            <dt>{t('overlay.type')}</dt>
            <dd>{artifact.mime}</dd>
            <dt>{t('overlay.added')}</dt>
            <dd>{formatTimestamp(artifact.created_at)}</dd>
            <dt>SHA-256</dt>
            <dd className="mono small" title={artifact.sha256}>
              {artifact.sha256.slice(0, 16)}…
            </dd>
          </dl>
          <div className="overlay-actions">
            {position.count > 1 && (
              <>
                <button type="button" className="btn" onClick={() => onNavigate(-1)} aria-label={t('overlay.previousPhoto')}>
                  ‹ {t('overlay.prev')}
                </button>
                <button type="button" className="btn" onClick={() => onNavigate(1)} aria-label={t('overlay.nextPhoto')}>
                  {t('overlay.next')} ›
                </button>
              </>
            )}
            <button
              type="button"
              className="btn"
              data-testid="overlay-download"
              disabled={full.kind !== 'ok'}
              onClick={downloadOriginal}
            >
              {t('overlay.download')}
            </button>
          </div>
        </aside>
      </div>
    </div>
  );
}
