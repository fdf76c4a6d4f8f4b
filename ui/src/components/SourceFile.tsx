// An imported PDF shown in a dialog, opened at a page: the Knowledge
// workspace's "Open at p. N" and a chat reply's citation chip of a PDF.

import { useEffect, useState } from 'react';
import { api } from '../api';
import { toApiError, type ApiError } from '../transport';
import { Modal } from './common';
import { t } from '../i18n';

interface Shown {
  title: string;
  page: number;
  url: string;
}

/**
 * `open` fetches the file a source version was imported from and shows it at
 * `page`, or, given a cited chunk id instead, at the page that chunk is on
 * (a chat citation carries only its chunk id). `dialog` is the element to
 * render; `error` says what went wrong (the file is not there, the chunk is
 * not of that source).
 */
export function useSourceFile() {
  const [shown, setShown] = useState<Shown | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  // The PDF lives in a blob URL for as long as it is shown; the viewer opens
  // it at the page (`#page=N`, which PDF viewers in browsers and web views read).
  useEffect(() => () => void (shown && URL.revokeObjectURL(shown.url)), [shown]);

  async function open(sourceId: string, version: number, at: { page: number } | { chunkId: string }) {
    setError(null);
    try {
      const file = await api.knowledgeSourceFile({
        source_id: sourceId,
        version,
        ...('chunkId' in at ? { chunk_id: at.chunkId } : {}),
      });
      const page = 'page' in at ? at.page : (file.page ?? 1);
      const bytes = Uint8Array.from(atob(file.data_base64), (ch) => ch.charCodeAt(0));
      const url = URL.createObjectURL(new Blob([bytes], { type: file.media_type }));
      setShown({ title: file.title, page, url });
    } catch (e) {
      setError(toApiError(e));
    }
  }

  const dialog = shown && (
    <Modal
      title={t('knowledge.fileTitle', { title: shown.title, page: shown.page })}
      onClose={() => setShown(null)}
      closeLabel={t('common.close')}
      testId="source-file-dialog"
      wide
    >
      <iframe
        className="source-file"
        title={t('knowledge.fileTitle', { title: shown.title, page: shown.page })}
        src={`${shown.url}#page=${shown.page}`}
        data-testid="source-file-frame"
      />
    </Modal>
  );
  return { open, dialog, error };
}
