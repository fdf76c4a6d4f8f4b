import { useEffect, useId, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { api, type Artifact, type ArtifactContent, type ConditionChoice } from '../api';
import { base64ToBytes, dataUrl, downloadBlob, formatBytes, formatTakenAt, formatTimestamp } from '../files';
import { toApiError, type ApiError } from '../transport';
import { artifactProblemLabel, ErrorCodeDetails, lockedProps, ReadOnlyNote, tabbables } from './common';
import { MarkupEditor } from './MarkupEditor';
import { ConditionTag, CONDITIONS } from './PhotoCondition';
import { errorAdvice } from '../errors';
import { t } from '../i18n';

/** Formats a webview can show natively. HEIC/HEIF have no decoder in browsers. */
const DISPLAYABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/bmp']);

type Full = { kind: 'loading' } | { kind: 'ok'; content: ArtifactContent } | { kind: 'error'; error: ApiError };

export function PhotoOverlay({
  artifact,
  original,
  position,
  onNavigate,
  onOpenArtifact,
  readOnly = false,
  onChanged,
  onClose,
}: {
  artifact: Artifact;
  /** For a marked-up copy: the photo it was drawn on, if still listed. */
  original?: Artifact;
  position: { index: number; count: number };
  onNavigate: (delta: number) => void;
  onOpenArtifact: (id: string) => void;
  /** Finalized: the caption, condition and markup cannot change until it is reopened. */
  readOnly?: boolean;
  /** A caption, condition or new marked-up copy was stored. */
  onChanged: (a: Artifact) => void;
  onClose: () => void;
}) {
  const [markingOpen, setMarking] = useState(false);
  const marking = markingOpen && !readOnly;
  const noteId = useId();
  const [savedCopy, setSavedCopy] = useState<Artifact | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const [full, setFull] = useState<Full>({ kind: 'loading' });
  const [preview, setPreview] = useState<string | null>(null);
  const [previewError, setPreviewError] = useState<ApiError | null>(null);
  const [imgFailed, setImgFailed] = useState(false);
  const closeButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    let alive = true;
    setMarking(false);
    setSavedCopy(null);
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
  }, []);

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      // Arrows move the caret in a text field, not to another photo; Escape
      // leaves the markup first, so a drawing is not lost with the overlay.
      const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
      if (e.key === 'Escape') {
        if (marking) setMarking(false);
        else onClose();
      } else if (typing || marking) return;
      else if (e.key === 'ArrowRight' && position.count > 1) onNavigate(1);
      else if (e.key === 'ArrowLeft' && position.count > 1) onNavigate(-1);
    }
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose, onNavigate, position.count, marking]);

  // Tab stays inside the dialog.
  function onDialogKeyDown(e: ReactKeyboardEvent<HTMLDivElement>) {
    if (e.key !== 'Tab' || !box.current) return;
    const items = tabbables(box.current);
    if (items.length === 0) return;
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.shiftKey && at <= 0) {
      e.preventDefault();
      items[items.length - 1].focus();
    } else if (!e.shiftKey && (at === -1 || at === items.length - 1)) {
      e.preventDefault();
      items[0].focus();
    }
  }

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
      <div
        ref={box}
        className={`overlay${marking ? ' is-marking' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-label={t('overlay.label', { name: artifact.file_name })}
        onKeyDown={onDialogKeyDown}
      >
        <div className="overlay-media">
          {marking && full.kind === 'ok' && (
            <MarkupEditor
              artifact={artifact}
              src={dataUrl(full.content.mime, full.content.content_base64)}
              onCancel={() => setMarking(false)}
              onSaved={(copy) => {
                setMarking(false);
                setSavedCopy(copy);
                onChanged(copy);
              }}
            />
          )}
          {full.kind === 'loading' && <div className="thumb-loading big" aria-label={t('overlay.loading')} />}
          {full.kind === 'error' && (
            <div className="overlay-problem" role="alert" data-testid="overlay-error" data-code={full.error.code}>
              <span className="problem-badge large">{artifactProblemLabel(full.error.code)}</span>
              <p>{errorAdvice(full.error.code)}</p>
              <p>{full.error.message}</p>
              <ErrorCodeDetails code={full.error.code} />
            </div>
          )}
          {!marking && full.kind === 'ok' && displayable && (
            <img
              src={dataUrl(full.content.mime, full.content.content_base64)}
              alt={artifact.caption ?? artifact.file_name}
              data-testid="overlay-image"
              onError={() => setImgFailed(true)}
            />
          )}
          {!marking && full.kind === 'ok' && !displayable && (
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
            {artifact.condition && (
              <>
                {' '}
                <ConditionTag condition={artifact.condition} />
              </>
            )}
          </h3>
          {artifact.derived_from && (
            <p className="markup-of" data-testid="overlay-markup-of">
              <span className="markup-badge">{t('photos.markedUp')}</span>{' '}
              {original ? (
                <button type="button" className="btn link" data-testid="overlay-open-original" onClick={() => onOpenArtifact(original.id)}>
                  {t('photos.markedUpFrom', { name: original.file_name })}
                </button>
              ) : (
                t('photos.originalGone')
              )}
            </p>
          )}
          {savedCopy && (
            <p className="saved-note" role="status" data-testid="markup-saved">
              {t('markup.saved', { name: savedCopy.file_name })}{' '}
              <button type="button" className="btn link" data-testid="markup-open-copy" onClick={() => onOpenArtifact(savedCopy.id)}>
                {t('markup.openCopy')}
              </button>
            </p>
          )}
          {readOnly && <ReadOnlyNote id={noteId} testId="overlay-read-only" />}
          {artifact.kind === 'image' && <AnnotateForm key={artifact.id} artifact={artifact} locked={readOnly ? noteId : null} onChanged={onChanged} />}
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
            {artifact.kind === 'image' && displayable && (
              <button
                type="button"
                className="btn"
                data-testid="overlay-markup"
                disabled={full.kind !== 'ok' || marking}
                {...lockedProps(readOnly, noteId)}
                onClick={() => {
                  setSavedCopy(null);
                  setMarking(true);
                }}
              >
                {t('markup.start')}
              </button>
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

/** The photo's caption and condition tag, each saved as it is set. */
function AnnotateForm({
  artifact,
  locked,
  onChanged,
}: {
  artifact: Artifact;
  /** The id of the note saying why nothing can be changed, when it cannot. */
  locked: string | null;
  onChanged: (a: Artifact) => void;
}) {
  const lock = lockedProps(!!locked, locked ?? '');
  const [caption, setCaption] = useState(artifact.caption ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const dirty = caption.trim() !== (artifact.caption ?? '');

  async function annotate(change: { caption?: string; condition?: ConditionChoice }) {
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const a = await api.artifactAnnotate({ session_id: artifact.session_id, artifact_id: artifact.id, ...change });
      if (change.caption !== undefined) setCaption(a.caption ?? '');
      setSaved(true);
      onChanged(a);
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="annotate" data-testid="annotate">
      <form
        className="annotate-caption"
        onSubmit={(e) => {
          e.preventDefault();
          if (dirty) void annotate({ caption: caption.trim() });
        }}
      >
        <label htmlFor={`caption-${artifact.id}`}>{t('annotate.caption')}</label>
        <div className="annotate-row">
          <input
            id={`caption-${artifact.id}`}
            type="text"
            className="caption-input"
            maxLength={1000}
            value={caption}
            placeholder={t('annotate.captionPlaceholder')}
            data-testid="annotate-caption"
            onChange={(e) => {
              setCaption(e.target.value);
              setSaved(false);
            }}
            {...lock}
          />
          <button type="submit" className="btn" data-testid="annotate-caption-save" disabled={!dirty || busy} {...lock}>
            {t('annotate.saveCaption')}
          </button>
        </div>
      </form>
      <div className="condition-group" role="group" aria-labelledby={`condition-${artifact.id}`}>
        <span id={`condition-${artifact.id}`} className="condition-label">
          {t('annotate.condition')}
        </span>
        <div className="condition-buttons">
          {CONDITIONS.map(({ value, label }) => {
            const on = artifact.condition === value;
            return (
              <button
                key={value}
                type="button"
                className={`btn condition-button condition-${value}${on ? ' active' : ''}`}
                aria-pressed={on}
                data-testid={`condition-${value}`}
                disabled={busy}
                {...lock}
                // Pressing the tag that is set takes it off.
                onClick={() => void annotate({ condition: on ? 'none' : value })}
              >
                {t(label)}
              </button>
            );
          })}
        </div>
      </div>
      <p className="small muted annotate-status" role="status" data-testid="annotate-status">
        {saved ? t('annotate.saved') : ''}
      </p>
      {error && (
        <p className="upload-error" role="alert" data-testid="annotate-error" data-code={error.code}>
          {errorAdvice(error.code)} {error.message} <ErrorCodeDetails code={error.code} />
        </p>
      )}
    </div>
  );
}
