import { lazy, Suspense, useCallback, useId, useRef, useState, type DragEvent } from 'react';
import { api, type Artifact, type BlobStatus } from '../api';
import { formatBytes, MAX_FILE_BYTES, readFileBase64 } from '../files';
import { ApiError, toApiError } from '../transport';
import { artifactProblemLabel, ErrorCodeDetails, lockedProps, ReadOnlyNote } from './common';
import { errorAdvice } from '../errors';
import { ConditionTag } from './PhotoCondition';
import { useSeen, useThumbnail } from '../hooks';
import { t, type MessageKey } from '../i18n';

type UploadStatus = 'queued' | 'reading' | 'uploading' | 'done' | 'error';

export interface UploadItem {
  key: string;
  name: string;
  size: number;
  status: UploadStatus;
  /** 0..1 while reading the file; the upload itself has no byte progress. */
  progress: number;
  error?: ApiError;
}

// The overlay (with its markup editor) loads when a photo is first opened:
// the app's first screen never needs it.
const PhotoOverlay = lazy(() => import('./PhotoOverlay').then((m) => ({ default: m.PhotoOverlay })));

let uploadSeq = 0;

export function PhotosSection({
  sessionId,
  artifacts,
  verifyStatus,
  readOnly = false,
  onUploaded,
}: {
  sessionId: string;
  artifacts: Artifact[];
  /** From the last "Verify photos", by artifact id. */
  verifyStatus: Record<string, BlobStatus>;
  /** Finalized: no photo is added, captioned, tagged or marked up until it is reopened. */
  readOnly?: boolean;
  onUploaded: (a: Artifact) => void;
}) {
  const noteId = useId();
  const [uploads, setUploads] = useState<UploadItem[]>([]);
  const [caption, setCaption] = useState('');
  const [dragging, setDragging] = useState(false);
  const [openIndex, setOpenIndex] = useState<number | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const cameraInput = useRef<HTMLInputElement>(null);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const dragDepth = useRef(0);
  const onUploadedRef = useRef(onUploaded);
  onUploadedRef.current = onUploaded;

  const update = useCallback((key: string, patch: Partial<UploadItem>) => {
    setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...patch } : u)));
  }, []);

  const uploadOne = useCallback(
    async (key: string, file: File, cap: string) => {
      if (file.size > MAX_FILE_BYTES) {
        update(key, {
          status: 'error',
          error: new ApiError(
            'too_large',
            t('chat.fileTooLarge', { name: file.name, size: formatBytes(file.size), max: formatBytes(MAX_FILE_BYTES) }),
          ),
        });
        return;
      }
      try {
        update(key, { status: 'reading', progress: 0 });
        const content = await readFileBase64(file, (f) => update(key, { progress: f }));
        update(key, { status: 'uploading', progress: 1 });
        const artifact = await api.artifactUpload({
          session_id: sessionId,
          file_name: file.name,
          content_base64: content,
          caption: cap,
        });
        update(key, { status: 'done' });
        onUploadedRef.current(artifact);
      } catch (e) {
        update(key, { status: 'error', error: toApiError(e) });
      }
    },
    [sessionId, update],
  );

  const addFiles = useCallback(
    (files: File[]) => {
      if (files.length === 0) return;
      const cap = caption;
      setCaption('');
      const items: UploadItem[] = files.map((f) => ({
        key: `u${++uploadSeq}`,
        name: f.name,
        size: f.size,
        status: 'queued',
        progress: 0,
      }));
      setUploads((list) => [...list, ...items]);
      // One at a time: a 32 MiB photo is ~43 MiB of base64 in memory.
      items.forEach((item, i) => {
        queue.current = queue.current.then(() => uploadOne(item.key, files[i], cap));
      });
    },
    [caption, uploadOne],
  );

  function onDragEnter(e: DragEvent) {
    if (readOnly || !hasFiles(e)) return;
    e.preventDefault();
    dragDepth.current++;
    setDragging(true);
  }
  function onDragOver(e: DragEvent) {
    if (readOnly || !hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  }
  function onDragLeave() {
    dragDepth.current = Math.max(0, dragDepth.current - 1);
    if (dragDepth.current === 0) setDragging(false);
  }
  function onDrop(e: DragEvent) {
    e.preventDefault();
    dragDepth.current = 0;
    setDragging(false);
    if (readOnly) return;
    addFiles(Array.from(e.dataTransfer?.files ?? []));
  }

  const byId = new Map(artifacts.map((a) => [a.id, a]));
  const openById = (id: string) => {
    const i = artifacts.findIndex((a) => a.id === id);
    if (i >= 0) setOpenIndex(i);
  };

  const finished = uploads.filter((u) => u.status === 'done' || u.status === 'error').length;

  return (
    <section className="card photos" aria-labelledby="photos-heading">
      <div className="card-head">
        <h3 id="photos-heading">
          {t('photos.title')} <span className="muted">({artifacts.length})</span>
        </h3>
        <div className="photo-controls">
          <input
            type="text"
            className="caption-input"
            placeholder={t('photos.captionPlaceholder')}
            aria-label={t('photos.caption')}
            data-testid="photo-caption"
            value={caption}
            onChange={(e) => setCaption(e.target.value)}
            {...lockedProps(readOnly, noteId)}
          />
          <button type="button" className="btn primary" data-testid="add-photos" onClick={() => fileInput.current?.click()} {...lockedProps(readOnly, noteId)}>
            {t('photos.add')}
          </button>
          <button type="button" className="btn camera-button" data-testid="take-photo" onClick={() => cameraInput.current?.click()} {...lockedProps(readOnly, noteId)}>
            {t('photos.takePhoto')}
          </button>
          <input
            ref={cameraInput}
            type="file"
            accept="image/*"
            capture="environment"
            hidden
            data-testid="photo-camera-input"
            onChange={(e) => {
              const files = Array.from(e.target.files ?? []);
              e.target.value = '';
              addFiles(files);
            }}
          />
          <input
            ref={fileInput}
            type="file"
            multiple
            hidden
            data-testid="photo-input"
            onChange={(e) => {
              const files = Array.from(e.target.files ?? []);
              e.target.value = ''; // picking the same file again must fire change
              addFiles(files);
            }}
          />
        </div>
      </div>

      {readOnly && <ReadOnlyNote id={noteId} testId="photos-read-only" />}
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        data-testid="photo-dropzone"
        data-dragging={dragging ? 'true' : 'false'}
        onDragEnter={onDragEnter}
        onDragOver={onDragOver}
        onDragLeave={onDragLeave}
        onDrop={onDrop}
      >
        {uploads.length > 0 && (
          <div className="uploads" data-testid="uploads">
            <div className="uploads-head">
              <span>
                {t('photos.uploads', { done: finished, total: uploads.length })}
              </span>
              {finished > 0 && (
                <button
                  type="button"
                  className="btn link"
                  data-testid="uploads-clear"
                  onClick={() => setUploads((l) => l.filter((u) => u.status !== 'done' && u.status !== 'error'))}
                >
                  {t('photos.clearFinished')}
                </button>
              )}
            </div>
            <ul>
              {uploads.map((u) => (
                <UploadRow key={u.key} item={u} />
              ))}
            </ul>
          </div>
        )}

        {artifacts.length === 0 ? (
          <p className="empty drop-hint" data-testid="photos-empty">
            {t('photos.empty')}
          </p>
        ) : (
          <>
            <ul className="photo-grid" data-testid="photo-grid">
              {artifacts.map((a, i) => {
                const original = a.derived_from ? byId.get(a.derived_from) : undefined;
                return (
                  <li key={a.id}>
                    <PhotoTile artifact={a} verify={verifyStatus[a.id]} onOpen={() => setOpenIndex(i)} eager={i < EAGER_THUMBS} />
                    {a.derived_from && (
                      // Outside the tile's button: a control may not hold another.
                      <button
                        type="button"
                        className="markup-badge as-link"
                        data-testid="photo-markup-of"
                        data-original-id={a.derived_from}
                        disabled={!original}
                        onClick={() => openById(a.derived_from!)}
                      >
                        {original ? t('photos.markedUpFrom', { name: original.file_name }) : t('photos.markedUp')}
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
            {!readOnly && <p className="drop-hint small muted">{t('photos.dropMore')}</p>}
          </>
        )}
        {dragging && (
          <div className="drop-overlay" aria-hidden="true">
            {t('photos.dropHere')}
          </div>
        )}
      </div>

      {openIndex !== null && artifacts[openIndex] && (
        <Suspense fallback={null}>
          <PhotoOverlay
            artifact={artifacts[openIndex]}
            original={artifacts[openIndex].derived_from ? byId.get(artifacts[openIndex].derived_from!) : undefined}
            position={{ index: openIndex, count: artifacts.length }}
            onNavigate={(d) => setOpenIndex((i) => (i === null ? null : (i + d + artifacts.length) % artifacts.length))}
            onOpenArtifact={openById}
            readOnly={readOnly}
            onChanged={(a) => onUploadedRef.current(a)}
            onClose={() => setOpenIndex(null)}
          />
        </Suspense>
      )}
    </section>
  );
}

function hasFiles(e: DragEvent): boolean {
  const types = e.dataTransfer?.types;
  return !!types && Array.from(types).includes('Files');
}

const STATUS_TEXT: Record<UploadStatus, MessageKey> = {
  queued: 'upload.queued',
  reading: 'upload.reading',
  uploading: 'upload.uploading',
  done: 'upload.done',
  error: 'upload.error',
};

function UploadRow({ item }: { item: UploadItem }) {
  return (
    <li className={`upload-row is-${item.status}`} data-testid="upload-item" data-status={item.status} data-name={item.name}>
      <div className="upload-line">
        <span className="upload-name">{item.name}</span>
        <span className="muted">{formatBytes(item.size)}</span>
        <span className="upload-status">
          {t(STATUS_TEXT[item.status])}
          {item.status === 'reading' ? ` ${Math.round(item.progress * 100)}%` : ''}
        </span>
      </div>
      {(item.status === 'reading' || item.status === 'uploading' || item.status === 'queued') && (
        <progress
          max={1}
          value={item.status === 'uploading' ? undefined : item.progress}
          aria-label={t('photos.progressOf', { name: item.name })}
        />
      )}
      {item.error && (
        <div className="upload-error" role="alert" data-testid="upload-error" data-code={item.error.code}>
          {errorAdvice(item.error.code)} {item.error.message} <ErrorCodeDetails code={item.error.code} />
        </div>
      )}
    </li>
  );
}


/** The first tiles load their thumbnails at once; further ones when they come near the viewport. */
const EAGER_THUMBS = 24;

function PhotoTile({
  artifact,
  verify,
  onOpen,
  eager,
}: {
  artifact: Artifact;
  verify: BlobStatus | undefined;
  onOpen: () => void;
  eager: boolean;
}) {
  // A long gallery loads only the thumbnails that come into view.
  const [tile, seen] = useSeen<HTMLButtonElement>();
  const thumb = useThumbnail(artifact, eager || seen);

  // A problem found by "Verify photos" outranks a thumbnail that still loads:
  // the thumbnail is a separate file from the original.
  const problem =
    verify && verify !== 'ok'
      ? { code: verify === 'missing' ? 'artifact_missing' : 'artifact_corrupt', message: t(verify === 'missing' ? 'photos.originalMissing' : 'photos.originalCorrupt') }
      : thumb.kind === 'error'
        ? { code: thumb.error.code, message: thumb.error.message }
        : null;

  return (
    <button
      ref={tile}
      type="button"
      className={`photo-tile${problem ? ' has-problem' : ''}`}
      data-testid="photo-tile"
      data-artifact-id={artifact.id}
      data-file-name={artifact.file_name}
      onClick={onOpen}
      title={`${artifact.file_name}${artifact.caption ? ` — ${artifact.caption}` : ''}`}
    >
      <div className="thumb-box">
        {artifact.thumbnail === 'none' ? (
          <div className="doc-icon" data-testid="photo-doc">
            <span>{fileExt(artifact.file_name, artifact.mime)}</span>
          </div>
        ) : thumb.kind === 'ok' ? (
          <img src={thumb.url} alt={artifact.caption ?? artifact.file_name} data-testid="photo-thumb" loading="lazy" />
        ) : thumb.kind === 'loading' ? (
          <div className="thumb-loading" aria-label={t('chat.loadingThumb')} />
        ) : (
          <div className="thumb-broken" />
        )}
        {problem && (
          <span className="problem-badge" data-testid="photo-badge" data-code={problem.code} title={problem.message}>
            {artifactProblemLabel(problem.code)}
          </span>
        )}
        {verify === 'ok' && (
          <span className="ok-badge" data-testid="photo-verified" title={t('photos.verified')}>
            ✓
          </span>
        )}
      </div>
      <div className="tile-caption">
        <span className="tile-name">{artifact.file_name}</span>
        {artifact.caption && <span className="tile-cap">{artifact.caption}</span>}
        {(artifact.condition || artifact.derived_from) && (
          <span className="tile-tags">
            {artifact.condition && <ConditionTag condition={artifact.condition} />}
            {artifact.derived_from && (
              <span className="markup-badge" data-testid="photo-markup-badge">
                {t('photos.markedUp')}
              </span>
            )}
          </span>
        )}
      </div>
    </button>
  );
}

export function fileExt(name: string, mime: string): string {
  const dot = name.lastIndexOf('.');
  if (dot > 0 && dot < name.length - 1) return name.slice(dot + 1).toUpperCase().slice(0, 5);
  return mime.split('/')[1]?.toUpperCase() ?? 'FILE';
}
