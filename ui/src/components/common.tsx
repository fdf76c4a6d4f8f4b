import type { ReactNode } from 'react';
import type { SessionStatus } from '../api';
import type { ApiError } from '../transport';

/** A backend (or transport) error, shown to the person with its code. */
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
      <span className="error-text">{error.message}</span>{' '}
      <code className="error-code">{error.code}</code>
      {children}
    </div>
  );
}

const STATUS_LABEL: Record<string, string> = {
  open: 'Open',
  escalated: 'Escalated',
  finalized: 'Finalized',
};

export function StatusBadge({ status }: { status: SessionStatus | string }) {
  return (
    <span className={`badge status-${status}`} data-testid="status-badge" data-status={status}>
      {STATUS_LABEL[status] ?? status}
    </span>
  );
}

/** What a person should read for an artifact error code. */
export function artifactProblemLabel(code: string): string {
  switch (code) {
    case 'artifact_missing':
    case 'missing':
      return 'Missing';
    case 'artifact_corrupt':
    case 'corrupt':
      return 'Corrupt';
    default:
      return 'Unavailable';
  }
}
