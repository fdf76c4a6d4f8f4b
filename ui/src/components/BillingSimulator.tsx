// The simulator: a rule (or a city and lot), entry and exit → billing_simulate,
// the total, and the breakdown as a timeline and a table.

import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api, type BillingRule, type Simulation } from '../api';
import { formatMinutes, formatMoney, formatWall, simulatePayload, type SimulatorForm } from '../billing';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { PieceTable, PieceTimeline } from './BillingBreakdown';
import { t } from '../i18n';

export function BillingSimulator({
  rules,
  preset,
  onShowRule,
}: {
  rules: BillingRule[] | null;
  preset: { rule_code: string; seq: number } | null;
  onShowRule: (ruleCode: string, versionNo?: number) => void;
}) {
  const [form, setForm] = useState<SimulatorForm>({ by: 'rule', rule_code: '', city_code: '', lot_code: '', entry: '', exit: '' });
  const [fieldError, setFieldError] = useState<{ field: string; message: string } | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Simulation | null>(null);
  const card = useRef<HTMLElement>(null);
  const ruleSelect = useRef<HTMLSelectElement>(null);
  const id = useId();
  const all = rules ?? [];
  const cities = [...new Set(all.map((r) => r.city_code))].sort();
  const lots = [...new Set(all.filter((r) => !form.city_code.trim() || r.city_code === form.city_code.trim().toUpperCase()).flatMap((r) => r.lot_codes))].sort();

  useEffect(() => {
    if (!preset) return;
    setForm((f) => ({ ...f, by: 'rule', rule_code: preset.rule_code }));
    setTimeout(() => {
      card.current?.scrollIntoView?.({ block: 'start' });
      ruleSelect.current?.focus();
    }, 0);
  }, [preset]);

  const set = <K extends keyof SimulatorForm>(k: K, v: SimulatorForm[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    if (fieldError?.field === k) setFieldError(null);
  };

  async function run(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const p = simulatePayload(form);
    if (!p.ok) {
      setFieldError({ field: p.field, message: p.message });
      setError(null);
      return;
    }
    setFieldError(null);
    setBusy(true);
    try {
      const r = await api.billingSimulate(p.payload);
      setResult(r);
      setError(null);
    } catch (err) {
      setError(toApiError(err));
      setResult(null);
    } finally {
      setBusy(false);
    }
  }

  const fe = (field: string) =>
    fieldError?.field === field ? (
      <span className="field-error" id={`${id}-${field}-err`} data-testid="sim-field-error">
        {fieldError.message}
      </span>
    ) : null;
  const invalid = (field: string) => (fieldError?.field === field ? { 'aria-invalid': true, 'aria-describedby': `${id}-${field}-err` } : {});

  return (
    <section ref={card} className="card billing-simulator" aria-labelledby={`${id}-h`} data-testid="billing-simulator">
      <div className="card-head">
        <h3 id={`${id}-h`}>{t('sim.title')}</h3>
        <span className="muted small">{t('sim.timesNote')}</span>
      </div>
      <form className="sim-form" onSubmit={run} aria-describedby={error ? `${id}-error` : undefined} noValidate>
        <fieldset className="sim-by">
          <legend className="sr-only">{t('sim.by')}</legend>
          <label className="check">
            <input type="radio" name={`${id}-by`} checked={form.by === 'rule'} onChange={() => set('by', 'rule')} data-testid="sim-by-rule" /> {t('rules.rule')}
          </label>
          <label className="check">
            <input type="radio" name={`${id}-by`} checked={form.by === 'scope'} onChange={() => set('by', 'scope')} data-testid="sim-by-scope" /> {t('sim.cityLot')}
          </label>
        </fieldset>
        {form.by === 'rule' ? (
          <label className="field sim-rule">
            <span>{t('rules.rule')}</span>
            <select ref={ruleSelect} value={form.rule_code} onChange={(e) => set('rule_code', e.target.value)} data-testid="sim-rule" {...invalid('rule_code')}>
              <option value="">{t('sim.pickRule')}</option>
              {all.map((r) => (
                <option key={r.rule_code} value={r.rule_code}>
                  {r.rule_code} — {r.name}
                </option>
              ))}
            </select>
            {fe('rule_code')}
          </label>
        ) : (
          <>
            <label className="field sim-code">
              <span>{t('knowledge.city')}</span>
              <input value={form.city_code} onChange={(e) => set('city_code', e.target.value)} list={`${id}-cities`} placeholder="SH" data-testid="sim-city" {...invalid('city_code')} />
              <datalist id={`${id}-cities`}>
                {cities.map((c) => (
                  <option key={c} value={c} />
                ))}
              </datalist>
              {fe('city_code')}
            </label>
            <label className="field sim-code">
              <span>{t('knowledge.lot')}</span>
              <input value={form.lot_code} onChange={(e) => set('lot_code', e.target.value)} list={`${id}-lots`} placeholder="LOT-A" data-testid="sim-lot" {...invalid('lot_code')} />
              <datalist id={`${id}-lots`}>
                {lots.map((c) => (
                  <option key={c} value={c} />
                ))}
              </datalist>
              {fe('lot_code')}
            </label>
          </>
        )}
        <label className="field">
          <span>{t('breakdown.entry')}</span>
          <input type="datetime-local" value={form.entry} onChange={(e) => set('entry', e.target.value)} data-testid="sim-entry" {...invalid('entry')} />
          {fe('entry')}
        </label>
        <label className="field">
          <span>{t('breakdown.exit')}</span>
          <input type="datetime-local" value={form.exit} onChange={(e) => set('exit', e.target.value)} data-testid="sim-exit" {...invalid('exit')} />
          {fe('exit')}
        </label>
        <button type="submit" className="btn primary sim-submit" disabled={busy} aria-busy={busy} data-testid="sim-run">
          {busy ? t('sim.running') : t('sim.run')}
        </button>
      </form>
      <div id={`${id}-error`}>
        <ErrorMessage error={error} testId="sim-error" />
      </div>
      <div className={`result-region${busy ? ' is-busy' : ''}`} aria-busy={busy} aria-live="polite" data-testid="sim-result-region">
        {result ? (
          <SimulationResult r={result} onShowRule={onShowRule} />
        ) : (
          <p className="muted small">{t('sim.hint')}</p>
        )}
      </div>
    </section>
  );
}

function SimulationResult({ r, onShowRule }: { r: Simulation; onShowRule: (c: string, v?: number) => void }) {
  const capped = r.pieces.filter((p) => p.cap_applied).length;
  return (
    <div className="sim-result" data-testid="sim-result">
      <div className="totals">
        <div className="total-box">
          <span className="total-label">{t('orders.total')}</span>
          <span className="total-amount" data-testid="sim-total">
            {formatMoney(r.total_amount)}
          </span>
        </div>
        <dl className="facts-inline">
          {'rule_code' in r && (
            <div>
              <dt>{t('rules.rule')}</dt>
              <dd>
                <button type="button" className="btn link" onClick={() => onShowRule(r.rule_code, r.version_no)} data-testid="sim-rule-link">
                  {r.rule_code} v{r.version_no}
                </button>
                {r.city_code && <span className="muted small"> {r.city_code} · {r.lot_codes.join(', ')}</span>}
              </dd>
            </div>
          )}
          <div>
            <dt>{t('orders.stay')}</dt>
            <dd>
              {formatWall(r.entry)} → {formatWall(r.exit)} <span className="muted small">({formatMinutes(r.stay_minutes)}, {r.time_zone})</span>
            </dd>
          </div>
          <div>
            <dt>{t('sim.pieces')}</dt>
            <dd data-testid="sim-piece-count">
              {r.pieces.length}
              {capped > 0 && (
                <span className="muted small" data-testid="sim-capped-count">
                  {' '}
                  · {t('sim.capped', { n: capped })}
                </span>
              )}
            </dd>
          </div>
          {r.free_minutes > 0 && (
            <div>
              <dt>{t('sim.grace')}</dt>
              <dd>
                {t('rules.minutes', { n: r.free_minutes })} {r.grace_applied ? <strong data-testid="sim-grace">{t('sim.graceApplied')}</strong> : <span className="muted">{t('sim.graceNot')}</span>}
              </dd>
            </div>
          )}
        </dl>
      </div>
      <PieceTimeline pieces={r.pieces} entry={r.entry} exit={r.exit} label={t('sim.timelineLabel')} />
      <PieceTable pieces={r.pieces} total={r.total_amount} caption={t('sim.tableCaption')} />
    </div>
  );
}
