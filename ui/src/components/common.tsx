import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import type { SessionStage, SessionStatus } from '../api';
import type { ApiError } from '../transport';
import { errorAdvice } from '../errors';
import { t, type MessageKey } from '../i18n';

/**
 * A backend (or transport) error as words: what to do (by its code, in the
 * interface language), then what exactly went wrong (the backend's message);
 * the code itself under a closed "Details".
 */
export function ErrorMessage({
  error,
  testId,
  children,
}: {
  error: ApiError | null | undefined;
  testId?: string;
  children?: ReactNode;
}) {
  if (!error) return null;
  return (
    <div className="error-box" role="alert" data-testid={testId} data-code={error.code}>
      <span className="error-advice">{errorAdvice(error.code)}</span>{' '}
      {error.message && <span className="error-text">{error.message}</span>}
      <ErrorCodeDetails code={error.code} />
      {children}
    </div>
  );
}

/**
 * Why the edit controls beside it are disabled: the repair order is
 * finalized. Those controls point here with `aria-describedby`.
 */
export function ReadOnlyNote({ id, testId }: { id: string; testId: string }) {
  return (
    <p className="note small read-only-note" id={id} data-testid={testId}>
      {t('ro.readOnlyHow')}
    </p>
  );
}

/** The props that disable a control on a finalized repair order, with the reason. */
export function lockedProps(readOnly: boolean, noteId: string) {
  return readOnly ? { disabled: true, 'aria-describedby': noteId, title: t('ro.readOnlyHow') } : {};
}

/** An error's code, for whoever asks (a support call): closed by default. */
export function ErrorCodeDetails({ code }: { code: string }) {
  return (
    <details className="tech-details error-details">
      <summary>{t('details.summary')}</summary>
      {t('details.errorCode')} <code className="error-code">{code}</code>
    </details>
  );
}

const STATUS_LABEL: Record<string, MessageKey> = {
  open: 'status.open',
  escalated: 'status.escalated',
  finalized: 'status.finalized',
  report_ready: 'status.report_ready',
  synced: 'status.synced',
} satisfies Record<SessionStage, MessageKey>;

/** A session status or stage as a person reads it (an unknown one as sent). */
export function statusLabel(status: string): string {
  const k = STATUS_LABEL[status];
  return k ? t(k) : status;
}

export function StatusBadge({ status }: { status: SessionStatus | SessionStage }) {
  return (
    <span className={`badge status-${status}`} data-testid="status-badge" data-status={status}>
      {statusLabel(status)}
    </span>
  );
}

/** What a person should read for an artifact error code. */
export function artifactProblemLabel(code: string): string {
  switch (code) {
    case 'artifact_missing':
    case 'missing':
      return t('integrity.missing');
    case 'artifact_corrupt':
    case 'corrupt':
      return t('integrity.corrupt');
    default:
      return t('integrity.unavailable');
  }
}

/**
 * A modal dialog: labelled by its title, focus moves in on open (the first
 * field, or the dialog), Tab stays inside, Escape and the close button close
 * it, and focus goes back to what opened it.
 */
export function Modal({
  title,
  onClose,
  children,
  testId,
  closeLabel,
  wide,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  testId?: string;
  closeLabel: string;
  wide?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const el = box.current;
    const first = el?.querySelector<HTMLElement>('[data-autofocus], input, select, textarea');
    (first ?? el)?.focus();
    // Escape closes also when focus fell out of the dialog (a button that went disabled while busy).
    const onEscape = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onCloseRef.current();
      }
    };
    window.addEventListener('keydown', onEscape);
    return () => {
      window.removeEventListener('keydown', onEscape);
      if (opener && document.contains(opener)) opener.focus();
    };
  }, []);

  // Focus that leaves the dialog some other way (a click on the veil's edge, a
  // browser shortcut, an element that disappeared) is brought back inside.
  useEffect(() => {
    const onFocusIn = (e: FocusEvent) => {
      const el = box.current;
      if (!el || !el.isConnected || !(e.target instanceof Node) || el.contains(e.target)) return;
      (tabbables(el)[0] ?? el).focus();
    };
    document.addEventListener('focusin', onFocusIn);
    return () => document.removeEventListener('focusin', onFocusIn);
  }, []);

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    if (e.key !== 'Tab' || !box.current) return;
    const items = tabbables(box.current);
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    const at = items.indexOf(document.activeElement as HTMLElement);
    if (e.shiftKey && (at <= 0)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (at === -1 || at === items.length - 1)) {
      e.preventDefault();
      first.focus();
    }
  }

  return (
    <div
      className="modal-veil"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onCloseRef.current();
      }}
    >
      <div
        ref={box}
        className={`modal${wide ? ' wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
        data-testid={testId}
      >
        <div className="modal-head">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="btn link modal-close" aria-label={closeLabel} title={closeLabel} onClick={onClose} data-testid="modal-close">
            ×
          </button>
        </div>
        <div className="modal-body">{children}</div>
      </div>
    </div>
  );
}

/**
 * The elements Tab stops at inside `root`, in order. A radio group is one tab
 * stop (its checked radio, or its first when none is), so the last stop of a
 * dialog ending in radios is the checked one, not the last radio.
 */
export function tabbables(root: HTMLElement): HTMLElement[] {
  const all = Array.from(
    root.querySelectorAll<HTMLElement>(
      'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]',
    ),
  ).filter((x) => x.tabIndex >= 0 && !x.closest('[hidden]') && !(x instanceof HTMLInputElement && x.hidden));
  return all.filter((x) => {
    if (!(x instanceof HTMLInputElement) || x.type !== 'radio' || !x.name) return true;
    const group = all.filter((y): y is HTMLInputElement => y instanceof HTMLInputElement && y.type === 'radio' && y.name === x.name);
    const checked = group.find((y) => y.checked);
    return checked ? checked === x : group[0] === x;
  });
}
