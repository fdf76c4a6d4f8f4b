// Every error code the backend (docs/api.md) or the transport can give, as
// words that say what happened and what to do, in the interface language.
// The code itself is shown only under "Details".

import { t, type MessageKey } from './i18n';

/** The backend's codes (AppError) and the ones the transport adds (network, bad_response, ipc). */
export const ERROR_CODES = [
  'network',
  'bad_response',
  'ipc',
  'invalid_json',
  'unknown_command',
  'invalid_input',
  'not_found',
  'unsupported_type',
  'empty_file',
  'too_large',
  'unreadable_path',
  'invalid_file_name',
  'has_artifacts',
  'artifact_missing',
  'artifact_corrupt',
  'unauthorized',
  'forbidden',
  'server_path_refused',
  'unsupported_media_type',
  'timeout',
  'storage',
  'internal',
  'conflict',
  'invalid_payload',
  'invalid_amount',
  'invalid_time',
  'unknown_time_zone',
  'exit_before_entry',
  'stay_too_long',
  'amount_overflow',
  'invalid_procedure',
  'keyring',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KEYS = Object.fromEntries(ERROR_CODES.map((c) => [c, `error.${c}`])) as Record<ErrorCode, MessageKey>;

/** What a person should read for an error code: what happened and what to do. */
export function errorAdvice(code: string): string {
  if (code in KEYS) return t(KEYS[code as ErrorCode]);
  const http = /^http_(\d{3})$/.exec(code);
  if (http) return t('error.http', { status: http[1] });
  return t('error.unknown');
}
