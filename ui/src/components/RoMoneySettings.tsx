// Settings: the repair order's number prefix and money. A labor rate per
// pay type, the tax rate, and whether labor is taxed (parts always are). The
// backend checks every field before it stores any and names the one that is
// wrong.
import { useEffect, useId, useState } from 'react';
import { api, type PayType, type RoSettingsView } from '../api';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { t } from '../i18n';
import { notifyMoneyChanged, PAY_TYPES, payLabel } from './ComplaintLines';

type Form = Record<PayType, string> & { ro_prefix: string; tax_rate: string; labor_taxable: boolean };

function formOf(s: RoSettingsView): Form {
  return { ...s.labor_rates, ro_prefix: s.ro_prefix, tax_rate: s.tax_rate, labor_taxable: s.labor_taxable };
}

export function RoMoneySettings() {
  const [form, setForm] = useState<Form | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const id = useId();

  useEffect(() => {
    let alive = true;
    api.roSettings().then(
      (s) => alive && setForm(formOf(s)),
      (e) => alive && setError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, []);

  async function save() {
    if (!form || busy) return;
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      const s = await api.roSettings({
        ro_prefix: form.ro_prefix,
        rate_customer: form.customer,
        rate_warranty: form.warranty,
        rate_internal: form.internal,
        rate_service_contract: form.service_contract,
        tax_rate: form.tax_rate,
        labor_taxable: form.labor_taxable,
      });
      setForm(formOf(s));
      setNote(t('money.saved'));
      notifyMoneyChanged();
    } catch (e) {
      setError(toApiError(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="settings-section" aria-labelledby={`${id}-money`} data-testid="settings-money">
      <h3 id={`${id}-money`}>{t('money.title')}</h3>
      {form && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
          noValidate
        >
          <label className="field">
            <span>{t('money.roPrefix')}</span>
            <input
              value={form.ro_prefix}
              onChange={(e) => setForm({ ...form, ro_prefix: e.target.value })}
              aria-describedby={`${id}-prefix-hint`}
              aria-invalid={error?.message.startsWith('ro_prefix:') || undefined}
              maxLength={40}
              autoComplete="off"
              spellCheck={false}
              data-testid="settings-ro-prefix"
            />
            <span className="note small" id={`${id}-prefix-hint`} data-testid="settings-ro-prefix-hint">
              {t('money.roPrefixHint', { first: `${form.ro_prefix.trim()}000001` })}
            </span>
          </label>
          <div className="field-grid">
            {PAY_TYPES.map((p) => (
              <label key={p} className="field">
                <span>{t('money.rate', { pay: payLabel(p) })}</span>
                <input
                  inputMode="decimal"
                  value={form[p]}
                  onChange={(e) => setForm({ ...form, [p]: e.target.value })}
                  data-testid={`settings-rate-${p}`}
                />
              </label>
            ))}
            <label className="field">
              <span>{t('money.taxRate')}</span>
              <input inputMode="decimal" value={form.tax_rate} onChange={(e) => setForm({ ...form, tax_rate: e.target.value })} data-testid="settings-tax-rate" />
            </label>
          </div>
          <label className="radio">
            <input
              type="checkbox"
              checked={form.labor_taxable}
              onChange={(e) => setForm({ ...form, labor_taxable: e.target.checked })}
              data-testid="settings-labor-taxable"
            />
            <span>{t('money.laborTaxable')}</span>
          </label>
          <ErrorMessage error={error} testId="settings-money-error" />
          <div className="form-actions">
            <button type="submit" className="btn" disabled={busy} aria-busy={busy} data-testid="settings-money-save">
              {busy ? t('common.saving') : t('money.save')}
            </button>
          </div>
        </form>
      )}
      {!form && <ErrorMessage error={error} testId="settings-money-error" />}
      <div className="note small" role="status" data-testid="settings-money-note" hidden={!note}>
        {note}
      </div>
    </section>
  );
}
