// Orders and arrears: the arrears of a plate (optionally in one city) with
// the unpaid and partly paid orders, and the stored orders filterable by
// plate and city. Every order row has "Verify".

import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { api, type ArrearsReport, type BillingOrder } from '../api';
import { arrearsPayload, arrearsStatusLabel, formatMoney, formatStay, ordersFilter, paymentState } from '../billing';
import { useDebounced } from '../hooks';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage } from './common';
import { t, type MessageKey } from '../i18n';

const PAYMENT_LABEL: Record<string, MessageKey> = { paid: 'orders.paid', partly: 'orders.partly', unpaid: 'orders.unpaid' };

export function BillingOrders({ version, onVerify }: { version: number; onVerify: (orderNo: string) => void }) {
  return (
    <section className="card billing-orders" aria-label={t('orders.label')} data-testid="billing-orders">
      <ArrearsCheck onVerify={onVerify} />
      <OrdersList version={version} onVerify={onVerify} />
    </section>
  );
}

function VerifyButton({ orderNo, onVerify }: { orderNo: string; onVerify: (o: string) => void }) {
  return (
    <button type="button" className="btn small-btn" onClick={() => onVerify(orderNo)} aria-label={t('orders.verifyFee', { order: orderNo })} data-testid="order-verify">
      {t('orders.verify')}
    </button>
  );
}

function ArrearsCheck({ onVerify }: { onVerify: (o: string) => void }) {
  const [plate, setPlate] = useState('');
  const [city, setCity] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [report, setReport] = useState<ArrearsReport | null>(null);
  const id = useId();

  async function check(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const p = arrearsPayload(plate, city);
    if (!p.ok) {
      setFieldError(p.message);
      return;
    }
    setFieldError(null);
    setBusy(true);
    try {
      setReport(await api.billingArrears(p.payload.plate_no, p.payload.city_code));
      setError(null);
    } catch (err) {
      setError(toApiError(err));
      setReport(null);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="arrears" data-testid="arrears">
      <h3 id={`${id}-h`}>{t('orders.arrears')}</h3>
      <form className="inline-form" onSubmit={check} aria-labelledby={`${id}-h`} noValidate>
        <label className="field">
          <span>{t('unit.plate')}</span>
          <input
            value={plate}
            onChange={(e) => {
              setPlate(e.target.value);
              setFieldError(null);
            }}
            placeholder="沪B20009"
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={fieldError ? `${id}-perr` : undefined}
            data-testid="arrears-plate"
          />
          {fieldError && (
            <span className="field-error" id={`${id}-perr`} data-testid="arrears-field-error">
              {fieldError}
            </span>
          )}
        </label>
        <label className="field code-field">
          <span>{t('orders.cityOptional')}</span>
          <input value={city} onChange={(e) => setCity(e.target.value)} placeholder="SH" data-testid="arrears-city" />
        </label>
        <button type="submit" className="btn primary" disabled={busy} aria-busy={busy} data-testid="arrears-check">
          {busy ? t('orders.checking') : t('orders.check')}
        </button>
      </form>
      <ErrorMessage error={error} testId="arrears-error" />
      <div className={`result-region${busy ? ' is-busy' : ''}`} aria-busy={busy} aria-live="polite">
        {report ? (
          <div className="arrears-result" data-testid="arrears-result" data-status={report.status}>
            <div className="totals">
              <span className={`badge arrears-status ${report.status === 'HAS_ARREARS' ? 'has' : 'none'}`} data-testid="arrears-status" title={arrearsStatusLabel(report.status)}>
                {report.status}
              </span>
              <span>
                {t('orders.owes')}{' '}
                <strong className="total-amount small-total" data-testid="arrears-total">
                  {formatMoney(report.total_arrears)}
                </strong>
              </span>
              <span className="muted small">
                {report.plate_no}
                {report.city_code ? ` ${t('orders.inCity', { city: report.city_code })}` : ` ${t('orders.everyCity')}`} · {t('orders.checked', { n: report.orders_checked })}
              </span>
            </div>
            {report.orders.length > 0 ? (
              <div className="table-scroll">
                <table className="sources-table" data-testid="arrears-orders">
                  <caption className="sr-only">{t('orders.unpaidOf', { plate: report.plate_no })}</caption>
                  <thead>
                    <tr>
                      <th scope="col">{t('orders.order')}</th>
                      <th scope="col">{t('orders.where')}</th>
                      <th scope="col">{t('orders.stay')}</th>
                      <th scope="col" className="num">
                        {t('orders.total')}
                      </th>
                      <th scope="col" className="num">
                        {t('orders.paidCol')}
                      </th>
                      <th scope="col" className="num">
                        {t('orders.owed')}
                      </th>
                      <th scope="col">
                        <span className="sr-only">{t('orders.actions')}</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {report.orders.map((o) => (
                      <tr key={o.order_no} data-testid="arrears-order" data-order-no={o.order_no}>
                        <th scope="row">
                          <code>{o.order_no}</code>
                          <div className="muted small">{t(PAYMENT_LABEL[paymentState(o)])}</div>
                        </th>
                        <td className="nowrap">
                          {o.city_code} · {o.lot_code}
                        </td>
                        <td className="small stay-cell">{formatStay(o.entry_time, o.exit_time)}</td>
                        <td className="num">{formatMoney(o.total_amount)}</td>
                        <td className="num">{formatMoney(o.paid_amount)}</td>
                        <td className="num amount" data-testid="arrears-amount">
                          {formatMoney(o.arrears_amount)}
                        </td>
                        <td>
                          <VerifyButton orderNo={o.order_no} onVerify={onVerify} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : (
              <p className="ok-text">{t('orders.nothingOwed')}</p>
            )}
          </div>
        ) : (
          <p className="muted small">{t('orders.hint')}</p>
        )}
      </div>
    </div>
  );
}

function OrdersList({ version, onVerify }: { version: number; onVerify: (o: string) => void }) {
  const [plate, setPlate] = useState('');
  const [city, setCity] = useState('');
  const [orders, setOrders] = useState<BillingOrder[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(false);
  const filter = useDebounced(ordersFilter(plate, city), 250);
  const key = JSON.stringify(filter);
  const seq = useRef(0);
  const id = useId();

  useEffect(() => {
    const mine = ++seq.current;
    setLoading(true);
    api.billingOrders(JSON.parse(key)).then(
      (r) => {
        if (mine !== seq.current) return;
        setOrders(r.orders);
        setError(null);
        setLoading(false);
      },
      (e) => {
        if (mine !== seq.current) return;
        setError(toApiError(e));
        setLoading(false);
      },
    );
  }, [key, version]);

  return (
    <div className="orders-list" data-testid="orders-list">
      <div className="card-head">
        <h3 id={`${id}-h`}>
          {t('orders.title')} {orders && <span className="muted">({orders.length})</span>}
        </h3>
        <span className="muted small" role="status" aria-live="polite">
          {loading ? t('common.loadingCap') : ''}
        </span>
      </div>
      <div className="sources-filters">
        <label className="field inline grow">
          <span>{t('unit.plate')}</span>
          <input type="search" value={plate} onChange={(e) => setPlate(e.target.value)} placeholder={t('orders.anyPlate')} data-testid="orders-plate" />
        </label>
        <label className="field inline">
          <span>{t('knowledge.city')}</span>
          <input type="search" value={city} onChange={(e) => setCity(e.target.value)} placeholder={t('common.any')} className="code-input" data-testid="orders-city" />
        </label>
      </div>
      <ErrorMessage error={error} testId="orders-error" />
      {orders && orders.length === 0 ? (
        <p className="empty" data-testid="orders-empty">
          {plate.trim() || city.trim() ? t('orders.noMatch') : t('orders.noneYet')}
        </p>
      ) : (
        <div className="table-scroll orders-scroll" tabIndex={0} role="region" aria-labelledby={`${id}-h`} aria-busy={loading}>
          <table className="sources-table" data-testid="orders-table">
            <thead>
              <tr>
                <th scope="col">{t('orders.order')}</th>
                <th scope="col">{t('unit.plate')}</th>
                <th scope="col">{t('orders.where')}</th>
                <th scope="col">{t('orders.stay')}</th>
                <th scope="col" className="num">
                  {t('orders.total')}
                </th>
                <th scope="col" className="num">
                  {t('orders.paidCol')}
                </th>
                <th scope="col" className="num">
                  {t('orders.owed')}
                </th>
                <th scope="col">
                  <span className="sr-only">{t('orders.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(orders ?? []).map((o) => {
                const pay = paymentState(o);
                return (
                  <tr key={o.order_no} data-testid="order-row" data-order-no={o.order_no} data-payment={pay}>
                    <th scope="row">
                      <code>{o.order_no}</code>
                    </th>
                    <td className="nowrap">{o.plate_no}</td>
                    <td className="nowrap">
                      {o.city_code} · {o.lot_code}
                    </td>
                    <td className="small stay-cell">{formatStay(o.entry_time, o.exit_time)}</td>
                    <td className="num">{formatMoney(o.total_amount)}</td>
                    <td className="num">{formatMoney(o.paid_amount)}</td>
                    <td className={`num${pay !== 'paid' ? ' owed' : ''}`}>{formatMoney(o.arrears_amount)}</td>
                    <td>
                      <VerifyButton orderNo={o.order_no} onVerify={onVerify} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
