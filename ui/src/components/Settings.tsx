// Settings: the portal (URL and token; the token is write-only), the
// repair order's labor rates and tax, the interface language and the
// theme. Opened from the header (Ctrl+,).

import { useEffect, useId, useState } from 'react';
import { api, type PortalSettings } from '../api';
import { notifySyncChanged } from '../events';
import { LOCALES, setLocale, t, useLocale, type Locale } from '../i18n';
import { urlOrigin } from '../sync';
import { setThemePref, THEME_PREFS, useThemePref, type ThemePref } from '../theme';
import { ApiError, toApiError } from '../transport';
import { ErrorMessage, Modal } from './common';
import { RoMoneySettings } from './RoMoneySettings';
import { ShopSettings } from './ShopSettings';

export function SettingsDialog({ onClose }: { onClose: () => void }) {
  return (
    <Modal title={t('settings.title')} onClose={onClose} closeLabel={t('common.close')} testId="settings-dialog">
      <PortalSettingsForm />
      <ShopSettings />
      <RoMoneySettings />
      <LanguageAndTheme />
      <Shortcuts />
    </Modal>
  );
}

function PortalSettingsForm() {
  const [settings, setSettings] = useState<PortalSettings | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [urlError, setUrlError] = useState<ApiError | null>(null);
  const [tokenError, setTokenError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState<'url' | 'token' | 'clear' | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const id = useId();

  useEffect(() => {
    let alive = true;
    api.portalSettings().then(
      (s) => {
        if (!alive) return;
        setSettings(s);
        setUrl(s.url ?? '');
      },
      (e) => alive && setLoadError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, []);

  async function saveUrl() {
    if (url.trim() === '') {
      setUrlError(new ApiError('invalid_input', t('settings.urlRequired')));
      return;
    }
    setBusy('url');
    setUrlError(null);
    setNote(null);
    try {
      const s = await api.portalSettings({ url: url.trim() });
      setSettings(s);
      setUrl(s.url ?? '');
      setNote(t('settings.urlSaved'));
      notifySyncChanged();
    } catch (e) {
      setUrlError(toApiError(e));
    } finally {
      setBusy(null);
      // The button was disabled while saving: put focus back where the person was.
      setTimeout(() => document.getElementById(`${id}-url`)?.focus(), 0);
    }
  }

  async function saveToken(clear: boolean) {
    if (!clear && token.trim() === '') {
      setTokenError(new ApiError('invalid_input', t('settings.tokenRequired')));
      return;
    }
    setBusy(clear ? 'clear' : 'token');
    setTokenError(null);
    setNote(null);
    try {
      const s = await api.portalSettings(clear ? { clear_token: true } : { token });
      setSettings(s);
      // The token is never kept in the page once it is stored.
      setToken('');
      setNote(clear ? t('settings.tokenRemoved') : t('settings.tokenSaved'));
      notifySyncChanged();
    } catch (e) {
      setTokenError(toApiError(e));
    } finally {
      setBusy(null);
      setTimeout(() => document.getElementById(`${id}-token`)?.focus(), 0);
    }
  }

  const tokenState = !settings
    ? ''
    : settings.token_set
      ? settings.token_last4
        ? t('settings.tokenSetEnding', { last4: settings.token_last4, origin: originLabel(settings.token_origin) })
        : t('settings.tokenSet', { origin: originLabel(settings.token_origin) })
      : t('settings.noToken');

  return (
    <section className="settings-section" aria-labelledby={`${id}-portal`} data-testid="settings-portal">
      <h3 id={`${id}-portal`}>{t('settings.portal')}</h3>
      <ErrorMessage error={loadError} testId="settings-load-error" />
      <form
        // The backend's refusal, in words under the field, rather than the browser's own tooltip.
        noValidate
        className="settings-row"
        onSubmit={(e) => {
          e.preventDefault();
          void saveUrl();
        }}
      >
        <label htmlFor={`${id}-url`}>{t('settings.portalUrl')}</label>
        <div className="settings-field">
          <input
            id={`${id}-url`}
            type="url"
            value={url}
            placeholder="https://portal.example.com"
            onChange={(e) => {
              setUrl(e.target.value);
              setUrlError(null);
            }}
            disabled={settings?.url_from_env}
            aria-invalid={urlError ? true : undefined}
            aria-describedby={`${id}-url-help ${id}-url-err`}
            data-testid="settings-url"
            data-autofocus
          />
          <button type="submit" className="btn" disabled={busy !== null || settings?.url_from_env} aria-busy={busy === 'url'} data-testid="settings-url-save">
            {busy === 'url' ? t('common.saving') : t('settings.saveUrl')}
          </button>
        </div>
        <p id={`${id}-url-help`} className="muted small" data-testid="settings-url-current">
          {settings?.url_from_env
            ? t('settings.urlFromEnv', { origin: urlOrigin(settings.url) })
            : settings?.url
              ? t('settings.urlCurrent', { origin: urlOrigin(settings.url) })
              : t('settings.urlNone')}
        </p>
        <div id={`${id}-url-err`}>
          <ErrorMessage error={urlError} testId="settings-url-error" />
        </div>
      </form>
      <form
        className="settings-row"
        onSubmit={(e) => {
          e.preventDefault();
          void saveToken(false);
        }}
      >
        <label htmlFor={`${id}-token`}>{t('settings.token')}</label>
        <div className="settings-field">
          <input
            id={`${id}-token`}
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={token}
            placeholder={settings?.token_set ? t('settings.tokenReplace') : ''}
            onChange={(e) => {
              setToken(e.target.value);
              setTokenError(null);
            }}
            aria-invalid={tokenError ? true : undefined}
            aria-describedby={`${id}-token-help ${id}-token-err`}
            data-testid="settings-token"
          />
          <button type="submit" className="btn" disabled={busy !== null} aria-busy={busy === 'token'} data-testid="settings-token-save">
            {busy === 'token' ? t('common.saving') : t('settings.saveToken')}
          </button>
          {settings?.token_set && settings.token_origin !== 'env' && (
            <button type="button" className="btn danger" disabled={busy !== null} onClick={() => void saveToken(true)} data-testid="settings-token-clear">
              {busy === 'clear' ? t('common.saving') : t('settings.removeToken')}
            </button>
          )}
        </div>
        <p id={`${id}-token-help`} className="muted small" data-testid="settings-token-state" data-set={settings?.token_set ?? ''}>
          {tokenState} {t('settings.tokenNeverShown')}
        </p>
        {settings?.keyring_error && (
          <p className="warn-text small" data-testid="settings-keyring-error">
            {t('settings.keyringError', { error: settings.keyring_error })}
          </p>
        )}
        <div id={`${id}-token-err`}>
          <ErrorMessage error={tokenError} testId="settings-token-error" />
        </div>
      </form>
      <div className="note small" role="status" data-testid="settings-note" hidden={!note}>
        {note}
      </div>
    </section>
  );
}

function originLabel(origin: PortalSettings['token_origin']): string {
  switch (origin) {
    case 'env':
      return t('settings.origin.env');
    case 'keyring':
      return t('settings.origin.keyring');
    case 'memory':
      return t('settings.origin.memory');
    default:
      return '—';
  }
}

function LanguageAndTheme() {
  const locale = useLocale();
  const theme = useThemePref();
  const id = useId();
  return (
    <>
      <section className="settings-section" data-testid="settings-language">
        <fieldset className="radio-row">
          <legend>{t('settings.language')}</legend>
          {LOCALES.map((l) => (
            <label key={l.value} className="radio">
              <input
                type="radio"
                name={`${id}-lang`}
                value={l.value}
                checked={locale === l.value}
                onChange={() => setLocale(l.value as Locale)}
                data-testid={`settings-lang-${l.value}`}
              />
              <span lang={l.value}>{l.label}</span>
            </label>
          ))}
        </fieldset>
        <p className="muted small">{t('settings.languageNote')}</p>
      </section>
      <section className="settings-section" data-testid="settings-theme">
        <fieldset className="radio-row">
          <legend>{t('settings.theme')}</legend>
          {THEME_PREFS.map((p) => (
            <label key={p} className="radio">
              <input
                type="radio"
                name={`${id}-theme`}
                value={p}
                checked={theme === p}
                onChange={() => setThemePref(p as ThemePref)}
                data-testid={`settings-theme-${p}`}
              />
              <span>{t(`settings.theme.${p}`)}</span>
            </label>
          ))}
        </fieldset>
      </section>
    </>
  );
}

/** The keyboard shortcuts of the whole app (the one place they are listed). */
function Shortcuts() {
  const rows: [string, string][] = [
    ['Alt+1 … Alt+4', t('settings.shortcut.workspaces')],
    ['Ctrl+,', t('settings.shortcut.settings')],
    ['Enter', t('settings.shortcut.send')],
    ['Esc', t('settings.shortcut.close')],
  ];
  return (
    <section className="settings-section" data-testid="settings-shortcuts">
      <h3>{t('settings.shortcuts')}</h3>
      <dl className="shortcut-list">
        {rows.map(([k, v]) => (
          <div key={k} style={{ display: 'contents' }}>
            <dt>
              <kbd>{k}</kbd>
            </dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
