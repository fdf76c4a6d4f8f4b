// Settings: the shop as its documents name it. Name, address and logo
// head every report PDF. The backend checks every field (the logo must be a
// PNG or JPEG of at most 2 MiB) and names the one that is wrong.
import { useEffect, useId, useState } from 'react';
import { api, type ShopProfile } from '../api';
import { readFileBase64 } from '../files';
import { t } from '../i18n';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';

export function ShopSettings() {
  const [profile, setProfile] = useState<ShopProfile | null>(null);
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [logo, setLogo] = useState<File | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const id = useId();

  function show(p: ShopProfile) {
    setProfile(p);
    setName(p.name ?? '');
    setAddress(p.address ?? '');
  }

  useEffect(() => {
    let alive = true;
    api.shopSettings().then(
      (p) => alive && show(p),
      (e) => alive && setError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, []);

  async function save(removeLogo = false) {
    if (busy) return;
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const p = await api.shopSettings({
        name,
        address,
        ...(logo && !removeLogo ? { logo_base64: await readFileBase64(logo) } : {}),
        ...(removeLogo ? { remove_logo: true } : {}),
      });
      show(p);
      setLogo(null);
      setNote(t('shop.saved'));
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="settings-section" aria-labelledby={`${id}-shop`} data-testid="settings-shop">
      <h3 id={`${id}-shop`}>{t('shop.title')}</h3>
      <p className="muted small">{t('shop.hint')}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        noValidate
      >
        <label className="field">
          <span>{t('shop.name')}</span>
          <input value={name} onChange={(e) => setName(e.target.value)} data-testid="settings-shop-name" />
        </label>
        <label className="field">
          <span>{t('shop.address')}</span>
          <textarea rows={3} value={address} onChange={(e) => setAddress(e.target.value)} data-testid="settings-shop-address" />
        </label>
        <label className="field">
          <span>{profile?.logo ? t('shop.logoReplace') : t('shop.logo')}</span>
          <input type="file" accept="image/png,image/jpeg" onChange={(e) => setLogo(e.target.files?.[0] ?? null)} data-testid="settings-shop-logo" />
        </label>
        {profile?.logo && (
          <p className="muted small" data-testid="settings-shop-logo-stored">
            {t('shop.logoStored')}{' '}
            <button type="button" className="btn" onClick={() => void save(true)} disabled={busy} data-testid="settings-shop-remove-logo">
              {t('shop.removeLogo')}
            </button>
          </p>
        )}
        <ErrorMessage error={error} testId="settings-shop-error" />
        <div className="form-actions">
          <button type="submit" className="btn" disabled={busy} aria-busy={busy} data-testid="settings-shop-save">
            {busy ? t('common.saving') : t('shop.save')}
          </button>
        </div>
      </form>
      <div className="note small" role="status" data-testid="settings-shop-note" hidden={!note}>
        {note}
      </div>
    </section>
  );
}
