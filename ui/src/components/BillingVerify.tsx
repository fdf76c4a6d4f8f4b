// Fee verification: an order re-priced under the rule in force at its entry;
// consistent (auto-approve) or mismatch (manual review) with the difference
// and the breakdown.

import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api, type Verification } from '../api';
import { actionLabel, formatMoney, formatSigned, formatWall, parseMoney, resultLabel } from '../billing';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { PieceTable, PieceTimeline } from './BillingBreakdown';
import { t } from '../i18n';

export function BillingVerify({
  request,
  onShowRule,
}: {
  request: { order_no: string; seq: number } | null;
  onShowRule: (ruleCode: string, versionNo?: number) => void;
}) {
  const [orderNo, setOrderNo] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [result, setResult] = useState<Verification | null>(null);
  const card = useRef<HTMLElement>(null);
  const seq = useRef(0);
  const id = useId();

  async function verify(no: string) {
    const n = no.trim();
    if (!n) {
      setFieldError(t('verify.enterOrder'));
      return;
    }
    setFieldError(null);
    const mine = ++seq.current;
    setBusy(true);
    try {
      const r = await api.billingVerify(n);
      if (mine !== seq.current) return;
      setResult(r);
      setError(null);
    } catch (e) {
      if (mine !== seq.current) return;
      setError(toApiError(e));
      setResult(null);
    } finally {
      if (mine === seq.current) setBusy(false);
    }
  }

  // "Verify" on an order row: fill in the number, run it, bring the card into view.
  useEffect(() => {
    if (!request) return;
    setOrderNo(request.order_no);
    void verify(request.order_no);
    setTimeout(() => card.current?.scrollIntoView?.({ block: 'start' }), 0);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [request]);

  return (
    <section ref={card} className="card billing-verify" aria-labelledby={`${id}-h`} data-testid="billing-verify">
      <div className="card-head">
        <h3 id={`${id}-h`}>{t('verify.title')}</h3>
      </div>
      <form
        className="inline-form"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (!busy) void verify(orderNo);
        }}
        noValidate
      >
        <label className="field">
          <span>{t('verify.orderNumber')}</span>
          <input
            value={orderNo}
            onChange={(e) => {
              setOrderNo(e.target.value);
              setFieldError(null);
            }}
            placeholder="ORD-022"
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={fieldError ? `${id}-err` : undefined}
            data-testid="verify-order"
          />
          {fieldError && (
            <span className="field-error" id={`${id}-err`} data-testid="verify-field-error">
              {fieldError}
            </span>
          )}
        </label>
        <button type="submit" className="btn primary" disabled={busy} aria-busy={busy} data-testid="verify-run">
          {busy ? t('detail.verifying') : t('orders.verify')}
        </button>
      </form>
      <ErrorMessage error={error} testId="verify-error" />
      <div className={`result-region${busy ? ' is-busy' : ''}`} aria-busy={busy} aria-live="polite">
        {result ? (
          <VerificationResult v={result} onShowRule={onShowRule} />
        ) : (
          <p className="muted small">{t('verify.hint')}</p>
        )}
      </div>
    </section>
  );
}

function VerificationResult({ v, onShowRule }: { v: Verification; onShowRule: (c: string, n?: number) => void }) {
  const ok = v.result === 'consistent';
  const diff = parseMoney(v.difference) ?? 0;
  return (
    <div className="verify-result" data-testid="verify-result" data-result={v.result} data-order-no={v.order_no}>
      <div className={`verdict ${ok ? 'ok' : 'bad'}`}>
        <span className={`badge verdict-badge ${ok ? 'ok' : 'bad'}`} data-testid="verify-verdict">
          {resultLabel(v.result)}
        </span>
        <span className="verdict-action" data-testid="verify-action" data-action={v.action}>
          {ok ? '✓' : '⚠'} {actionLabel(v.action)}
        </span>
        <span className="muted small">
          <code>{v.order_no}</code> · {v.plate_no} · {v.city_code} {v.lot_code}
        </span>
      </div>
      <dl className="money-grid">
        <div>
          <dt>{t('verify.orderTotal')}</dt>
          <dd data-testid="verify-order-total">{formatMoney(v.order_total)}</dd>
        </div>
        <div>
          <dt>{t('verify.simulatedTotal')}</dt>
          <dd data-testid="verify-simulated-total">{formatMoney(v.simulated_total)}</dd>
        </div>
        <div>
          <dt>{t('verify.difference')}</dt>
          <dd data-testid="verify-difference" className={diff !== 0 ? 'warn-text' : undefined} title={t('verify.differenceTitle')}>
            {formatSigned(v.difference)}
          </dd>
        </div>
        <div>
          <dt>{t('orders.paidCol')}</dt>
          <dd>{formatMoney(v.paid_amount)}</dd>
        </div>
        <div>
          <dt>{t('rules.rule')}</dt>
          <dd>
            <button type="button" className="btn link" onClick={() => onShowRule(v.rule_code, v.version_no)} data-testid="verify-rule">
              {v.rule_code} v{v.version_no}
            </button>
          </dd>
        </div>
      </dl>
      <p className="muted small">
        {t('orders.stay')} {formatWall(v.entry_time)} → {formatWall(v.exit_time)} ({v.time_zone})
      </p>
      <PieceTimeline pieces={v.pieces} entry={v.entry_time} exit={v.exit_time} label={t('verify.timelineLabel', { order: v.order_no })} />
      <PieceTable pieces={v.pieces} total={v.simulated_total} caption={t('verify.tableCaption', { order: v.order_no })} />
    </div>
  );
}
