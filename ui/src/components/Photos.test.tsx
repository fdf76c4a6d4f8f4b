// The photo gallery and overlay: a caption and a condition tag saved from the
// overlay, a marked-up copy drawn with arrow, circle and text tools and saved
// as a new photo, and the gallery showing the copy linked to its original.
import { act, useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Artifact } from '../api';
import { appError, installFakeBackend, makeArtifact, type FakeBackend, type Handlers } from '../test/fakeBackend';
import { allByTestId, byTestId, click, render, typeInto, waitFor, type Rendered } from '../test/render';
import { PhotosSection } from './Photos';
import { setLocale } from '../i18n';

/** A 1×1 PNG: what artifact_content answers for every photo here. */
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function Gallery({ initial }: { initial: Artifact[] }) {
  const [artifacts, setArtifacts] = useState(initial);
  // As the session reloads after a change: the changed photo replaced, a new one appended.
  const onUploaded = (a: Artifact) =>
    setArtifacts((list) => (list.some((x) => x.id === a.id) ? list.map((x) => (x.id === a.id ? a : x)) : [...list, a]));
  return <PhotosSection sessionId="s1" artifacts={artifacts} verifyStatus={{}} onUploaded={onUploaded} />;
}

let mounted: Rendered | null = null;
function mount(handlers: Handlers, artifacts: Artifact[]): { root: HTMLElement; backend: FakeBackend } {
  const backend = installFakeBackend({
    artifact_content: () => ({ mime: 'image/png', content_base64: PNG_B64 }),
    ...handlers,
  });
  mounted = render(<Gallery initial={artifacts} />);
  return { root: mounted.container, backend };
}

/** "Mark up", once the photo has loaded (it is disabled until then). */
function markupButton(overlay: HTMLElement) {
  return waitFor(() => {
    const b = byTestId(overlay, 'overlay-markup') as HTMLButtonElement | null;
    return b && !b.disabled && b;
  });
}

function pointer(el: Element, type: string, x: number, y: number) {
  act(() => {
    el.dispatchEvent(new MouseEvent(type, { bubbles: true, clientX: x, clientY: y }));
  });
}

beforeEach(() => setLocale('en'));
afterEach(() => {
  mounted?.unmount();
  mounted = null;
});

describe('photo caption and condition', () => {
  it('saves a trimmed caption and a condition from the overlay, and a pressed tag clears', async () => {
    const photo = makeArtifact('s1', { file_name: 'fuse.jpg' });
    const { root, backend } = mount(
      {
        artifact_annotate: (p) => ({
          ...photo,
          caption: p.caption != null ? p.caption || null : photo.caption,
          condition: p.condition == null || p.condition === 'none' ? null : p.condition,
        }),
      },
      [photo],
    );
    click(await waitFor(() => byTestId(root, 'photo-tile')));
    const overlay = await waitFor(() => byTestId(document.body, 'photo-overlay'));

    typeInto(byTestId(overlay, 'annotate-caption')!, '  burner tube sooted ');
    click(byTestId(overlay, 'annotate-caption-save'));
    await waitFor(() => byTestId(overlay, 'overlay-caption')!.textContent === 'burner tube sooted');
    expect(backend.callsOf('artifact_annotate')[0]).toEqual({ session_id: 's1', artifact_id: photo.id, caption: 'burner tube sooted' });
    expect(byTestId(overlay, 'annotate-status')!.textContent).toBe('Saved.');

    // Three tags, one pressed at a time; the gallery shows it as a coloured tag.
    expect(allByTestId(overlay, 'condition-urgent')).toHaveLength(1);
    click(byTestId(overlay, 'condition-urgent'));
    await waitFor(() => byTestId(overlay, 'condition-urgent')!.getAttribute('aria-pressed') === 'true');
    expect(byTestId(overlay, 'condition-ok')!.getAttribute('aria-pressed')).toBe('false');
    const tag = byTestId(byTestId(root, 'photo-tile')!, 'condition-tag')!;
    expect(tag.textContent).toBe('Urgent');
    expect(tag.getAttribute('data-condition')).toBe('urgent');

    click(byTestId(overlay, 'condition-urgent'));
    await waitFor(() => byTestId(overlay, 'condition-urgent')!.getAttribute('aria-pressed') === 'false');
    expect(backend.callsOf('artifact_annotate').map((c) => c.condition)).toEqual([undefined, 'urgent', 'none']);
    expect(byTestId(root, 'condition-tag')).toBeNull();
  });

  it('says in words why a finalized repair order refused the change', async () => {
    const photo = makeArtifact('s1');
    const { root } = mount(
      {
        artifact_annotate: () => {
          throw appError('invalid_input', 'session_id: repair order RO-000001 is finalized, so it cannot change; reopen it first');
        },
      },
      [photo],
    );
    click(await waitFor(() => byTestId(root, 'photo-tile')));
    const overlay = await waitFor(() => byTestId(document.body, 'photo-overlay'));
    click(byTestId(overlay, 'condition-ok'));
    const err = await waitFor(() => byTestId(overlay, 'annotate-error'));
    expect(err.textContent).toContain('reopen it first');
    expect(byTestId(overlay, 'condition-ok')!.getAttribute('aria-pressed')).toBe('false');
  });

  it('is in Spanish and Russian too', async () => {
    setLocale('ru');
    const { root } = mount({}, [makeArtifact('s1', { condition: 'attention', derived_from: 'a0' })]);
    const tile = await waitFor(() => byTestId(root, 'photo-tile'));
    expect(byTestId(tile, 'condition-tag')!.textContent).toBe('Внимание');
    expect(byTestId(tile, 'photo-markup-badge')!.textContent).toBe('С пометками');
  });
});

describe('markup', () => {
  let drawn: string[];
  beforeEach(() => {
    drawn = [];
    // jsdom has no 2D canvas: record what is drawn, and export a fixed PNG.
    const ctx = new Proxy(
      {},
      {
        get: (_t, prop) => (typeof prop === 'string' && ['stroke', 'fillText', 'arc', 'drawImage'].includes(prop) ? () => drawn.push(prop) : () => {}),
        set: () => true,
      },
    );
    vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(ctx as unknown as CanvasRenderingContext2D);
    vi.spyOn(HTMLCanvasElement.prototype, 'toDataURL').mockReturnValue(`data:image/png;base64,${PNG_B64}`);
  });

  it('draws an arrow and a text, undoes, saves a PNG copy linked to the original, and the gallery links back', async () => {
    const photo = makeArtifact('s1', { file_name: 'fuse.jpg', mime: 'image/jpeg', caption: 'panel fuse', condition: 'urgent' });
    const { root, backend } = mount(
      {
        artifact_markup: (p) =>
          makeArtifact('s1', { file_name: 'fuse-markup.png', mime: 'image/png', derived_from: p.original_id, caption: p.caption ?? 'panel fuse', condition: 'urgent' }),
      },
      [photo],
    );
    click(await waitFor(() => byTestId(root, 'photo-tile')));
    const overlay = await waitFor(() => byTestId(document.body, 'photo-overlay'));
    click(await markupButton(overlay));
    const editor = await waitFor(() => byTestId(overlay, 'markup-editor'));
    expect(byTestId(editor, 'markup-tool-arrow')!.getAttribute('aria-pressed')).toBe('true');
    expect((byTestId(editor, 'markup-save') as HTMLButtonElement).disabled).toBe(true);

    const canvas = byTestId(editor, 'markup-canvas')!;
    pointer(canvas, 'pointerdown', 50, 50);
    pointer(canvas, 'pointermove', 150, 120);
    pointer(canvas, 'pointerup', 150, 120);
    // A tap without a drag draws nothing.
    pointer(canvas, 'pointerdown', 300, 300);
    pointer(canvas, 'pointerup', 300, 300);
    expect(editor.getAttribute('data-shapes')).toBe('1');

    click(byTestId(editor, 'markup-tool-circle'));
    pointer(canvas, 'pointerdown', 200, 200);
    pointer(canvas, 'pointermove', 240, 200);
    pointer(canvas, 'pointerup', 240, 200);
    expect(editor.getAttribute('data-shapes')).toBe('2');
    click(byTestId(editor, 'markup-undo'));
    expect(editor.getAttribute('data-shapes')).toBe('1');

    click(byTestId(editor, 'markup-tool-text'));
    typeInto(byTestId(editor, 'markup-text-input')!, 'blown');
    act(() => {
      byTestId(editor, 'markup-text-input')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
    });
    expect(editor.getAttribute('data-shapes')).toBe('2');
    expect(drawn).toContain('fillText');

    typeInto(byTestId(editor, 'markup-caption')!, 'arrow at the fuse');
    click(byTestId(editor, 'markup-save'));
    const saved = await waitFor(() => byTestId(overlay, 'markup-saved'));
    expect(saved.textContent).toContain('fuse-markup.png');
    expect(backend.callsOf('artifact_markup')).toEqual([
      { session_id: 's1', original_id: photo.id, data_base64: PNG_B64, caption: 'arrow at the fuse' },
    ]);
    expect(byTestId(overlay, 'markup-editor')).toBeNull();

    // The gallery: the copy with its badge, which opens the original.
    await waitFor(() => allByTestId(root, 'photo-tile').length === 2);
    const copyTile = allByTestId(root, 'photo-tile')[1];
    expect(byTestId(copyTile, 'photo-markup-badge')!.textContent).toBe('Marked up');
    const link = byTestId(root, 'photo-markup-of')!;
    expect(link.textContent).toBe('Marked up from fuse.jpg');
    click(byTestId(overlay, 'overlay-close'));
    click(link);
    const reopened = await waitFor(() => byTestId(document.body, 'photo-overlay'));
    expect(byTestId(reopened, 'overlay-file-name')!.textContent).toBe('fuse.jpg');
  });

  it('keeps the drawing when the save is refused, and Escape leaves the markup before the overlay', async () => {
    const photo = makeArtifact('s1', { mime: 'image/png', file_name: 'p.png' });
    const { root } = mount(
      {
        artifact_markup: () => {
          throw appError('invalid_input', 'session_id: repair order RO-000001 is finalized, so it cannot change; reopen it first');
        },
      },
      [photo],
    );
    click(await waitFor(() => byTestId(root, 'photo-tile')));
    const overlay = await waitFor(() => byTestId(document.body, 'photo-overlay'));
    click(await markupButton(overlay));
    const editor = await waitFor(() => byTestId(overlay, 'markup-editor'));
    const canvas = byTestId(editor, 'markup-canvas')!;
    pointer(canvas, 'pointerdown', 10, 10);
    pointer(canvas, 'pointermove', 90, 90);
    pointer(canvas, 'pointerup', 90, 90);
    click(byTestId(editor, 'markup-save'));
    const err = await waitFor(() => byTestId(editor, 'markup-error'));
    expect(err.textContent).toContain('reopen it first');
    expect(editor.getAttribute('data-shapes')).toBe('1');

    act(() => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    });
    expect(byTestId(overlay, 'markup-editor')).toBeNull();
    expect(byTestId(document.body, 'photo-overlay')).not.toBeNull();
  });
});
