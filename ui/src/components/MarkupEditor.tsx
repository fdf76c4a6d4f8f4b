import { useCallback, useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { api, type Artifact } from '../api';
import { toApiError, type ApiError } from '../transport';
import { errorAdvice } from '../errors';
import { ErrorCodeDetails } from './common';
import { t, type MessageKey } from '../i18n';

export type Tool = 'arrow' | 'circle' | 'text';

/** What is drawn, in the photo's own pixels (the canvas is scaled to fit on screen). */
export type Shape =
  | { kind: 'arrow'; x1: number; y1: number; x2: number; y2: number }
  | { kind: 'circle'; cx: number; cy: number; r: number }
  | { kind: 'text'; x: number; y: number; text: string };

const TOOLS: { tool: Tool; label: MessageKey }[] = [
  { tool: 'arrow', label: 'markup.arrow' },
  { tool: 'circle', label: 'markup.circle' },
  { tool: 'text', label: 'markup.text' },
];

/** Red with a white edge reads on dark and light parts of a photo alike. */
const INK = '#e02020';
const EDGE = '#ffffff';
const MAX_TEXT = 60;

/**
 * Draws arrows, circles and a short text over a photo. Save sends the photo
 * with the drawing as a PNG; the server stores it as a new photo linked to
 * this one, which is never changed.
 */
export function MarkupEditor({
  artifact,
  src,
  onSaved,
  onCancel,
}: {
  artifact: Artifact;
  /** The photo's full image (a data URL). */
  src: string;
  onSaved: (copy: Artifact) => void;
  onCancel: () => void;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const image = useRef<HTMLImageElement>(null);
  const [loaded, setLoaded] = useState(false);
  const [tool, setTool] = useState<Tool>('arrow');
  const [shapes, setShapes] = useState<Shape[]>([]);
  const [draft, setDraft] = useState<Shape | null>(null);
  const [text, setText] = useState('');
  const [caption, setCaption] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const textInput = useRef<HTMLInputElement>(null);

  const size = useCallback(() => {
    const img = image.current;
    const w = img?.naturalWidth || Number(artifact.width) || 800;
    const h = img?.naturalHeight || Number(artifact.height) || 600;
    return { w, h };
  }, [artifact.width, artifact.height]);

  // Redraw everything on each change: a photo plus a few shapes is cheap,
  // and it keeps undo a matter of dropping the last shape.
  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const { w, h } = size();
    if (c.width !== w) c.width = w;
    if (c.height !== h) c.height = h;
    const ctx = c.getContext?.('2d');
    if (!ctx) return;
    ctx.clearRect(0, 0, w, h);
    if (loaded && image.current) ctx.drawImage(image.current, 0, 0, w, h);
    for (const s of draft ? [...shapes, draft] : shapes) drawShape(ctx, s, w);
  }, [shapes, draft, loaded, size]);

  function point(e: ReactPointerEvent<HTMLCanvasElement>) {
    const c = e.currentTarget;
    const r = c.getBoundingClientRect();
    const sx = r.width ? c.width / r.width : 1;
    const sy = r.height ? c.height / r.height : 1;
    return { x: (e.clientX - r.left) * sx, y: (e.clientY - r.top) * sy };
  }

  function placeText(x: number, y: number) {
    const words = text.trim();
    if (!words) {
      textInput.current?.focus();
      return;
    }
    setShapes((l) => [...l, { kind: 'text', x, y, text: words }]);
    setText('');
  }

  function onPointerDown(e: ReactPointerEvent<HTMLCanvasElement>) {
    if (busy) return;
    const p = point(e);
    if (tool === 'text') {
      placeText(p.x, p.y);
      return;
    }
    e.currentTarget.setPointerCapture?.(e.pointerId);
    setDraft(tool === 'arrow' ? { kind: 'arrow', x1: p.x, y1: p.y, x2: p.x, y2: p.y } : { kind: 'circle', cx: p.x, cy: p.y, r: 0 });
  }

  function onPointerMove(e: ReactPointerEvent<HTMLCanvasElement>) {
    if (!draft) return;
    const p = point(e);
    setDraft(draft.kind === 'arrow' ? { ...draft, x2: p.x, y2: p.y } : draft.kind === 'circle' ? { ...draft, r: Math.hypot(p.x - draft.cx, p.y - draft.cy) } : draft);
  }

  function onPointerUp() {
    if (!draft) return;
    // A tap is not a shape: only a drag of a few pixels draws one.
    const { w } = size();
    const min = Math.max(4, w / 200);
    const long = draft.kind === 'arrow' ? Math.hypot(draft.x2 - draft.x1, draft.y2 - draft.y1) >= min : draft.kind === 'circle' ? draft.r >= min : true;
    if (long) setShapes((l) => [...l, draft]);
    setDraft(null);
  }

  async function save() {
    const c = canvas.current;
    if (!c || shapes.length === 0) return;
    setBusy(true);
    setError(null);
    try {
      const url = c.toDataURL('image/png');
      const data = url.slice(url.indexOf(',') + 1);
      const copy = await api.artifactMarkup({ session_id: artifact.session_id, original_id: artifact.id, data_base64: data, caption });
      onSaved(copy);
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="markup" data-testid="markup-editor" data-shapes={shapes.length}>
      <div className="markup-toolbar" role="toolbar" aria-label={t('markup.tools')}>
        {TOOLS.map(({ tool: id, label }) => (
          <button
            key={id}
            type="button"
            className={`btn markup-tool${tool === id ? ' active' : ''}`}
            aria-pressed={tool === id}
            data-testid={`markup-tool-${id}`}
            onClick={() => {
              setTool(id);
              if (id === 'text') setTimeout(() => textInput.current?.focus(), 0);
            }}
          >
            {t(label)}
          </button>
        ))}
        <button type="button" className="btn markup-tool" data-testid="markup-undo" disabled={shapes.length === 0 || busy} onClick={() => setShapes((l) => l.slice(0, -1))}>
          {t('markup.undo')}
        </button>
      </div>
      {tool === 'text' && (
        <div className="markup-text">
          <input
            ref={textInput}
            type="text"
            maxLength={MAX_TEXT}
            value={text}
            aria-label={t('markup.textLabel')}
            placeholder={t('markup.textPlaceholder')}
            data-testid="markup-text-input"
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              // From the keyboard the text goes in the middle of the photo.
              if (e.key === 'Enter') {
                e.preventDefault();
                const { w, h } = size();
                placeText(w / 2, h / 2);
              }
            }}
          />
          <span className="small muted">{t('markup.textHint')}</span>
        </div>
      )}
      <div className="markup-stage">
        <img ref={image} src={src} alt="" hidden onLoad={() => setLoaded(true)} data-testid="markup-source" />
        <canvas
          ref={canvas}
          className={`markup-canvas tool-${tool}`}
          data-testid="markup-canvas"
          role="img"
          aria-label={t('markup.canvasLabel', { name: artifact.file_name, n: shapes.length })}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={() => setDraft(null)}
        />
      </div>
      <div className="markup-foot">
        <input
          type="text"
          className="caption-input"
          value={caption}
          maxLength={1000}
          aria-label={t('markup.captionLabel')}
          placeholder={t('markup.captionPlaceholder')}
          data-testid="markup-caption"
          onChange={(e) => setCaption(e.target.value)}
        />
        <button type="button" className="btn primary" data-testid="markup-save" disabled={shapes.length === 0 || busy} onClick={save}>
          {busy ? t('markup.saving') : t('markup.save')}
        </button>
        <button type="button" className="btn" data-testid="markup-cancel" disabled={busy} onClick={onCancel}>
          {t('markup.cancel')}
        </button>
      </div>
      {error && (
        <p className="upload-error" role="alert" data-testid="markup-error" data-code={error.code}>
          {errorAdvice(error.code)} {error.message} <ErrorCodeDetails code={error.code} />
        </p>
      )}
    </div>
  );
}

function drawShape(ctx: CanvasRenderingContext2D, s: Shape, width: number) {
  const line = Math.max(3, Math.round(width / 160));
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  const stroke = (path: () => void) => {
    for (const [color, w] of [
      [EDGE, line + 3],
      [INK, line],
    ] as const) {
      ctx.strokeStyle = color;
      ctx.lineWidth = w;
      ctx.beginPath();
      path();
      ctx.stroke();
    }
  };
  if (s.kind === 'arrow') {
    const angle = Math.atan2(s.y2 - s.y1, s.x2 - s.x1);
    const head = line * 5;
    stroke(() => {
      ctx.moveTo(s.x1, s.y1);
      ctx.lineTo(s.x2, s.y2);
      ctx.moveTo(s.x2 - head * Math.cos(angle - Math.PI / 6), s.y2 - head * Math.sin(angle - Math.PI / 6));
      ctx.lineTo(s.x2, s.y2);
      ctx.lineTo(s.x2 - head * Math.cos(angle + Math.PI / 6), s.y2 - head * Math.sin(angle + Math.PI / 6));
    });
  } else if (s.kind === 'circle') {
    stroke(() => ctx.arc(s.cx, s.cy, s.r, 0, Math.PI * 2));
  } else {
    const size = Math.max(16, Math.round(width / 22));
    ctx.font = `bold ${size}px sans-serif`;
    ctx.textBaseline = 'middle';
    ctx.lineWidth = Math.max(3, size / 6);
    ctx.strokeStyle = EDGE;
    ctx.strokeText(s.text, s.x, s.y);
    ctx.fillStyle = INK;
    ctx.fillText(s.text, s.x, s.y);
  }
}
