// The repair order's complaint lines in the session view: each line's
// customer words, pay type (and for warranty, who pays), its labor and parts
// with their amounts, the answer to its estimate, and the totals, as the
// backend prices them (exact decimals; nothing is computed here). A line is
// edited in a form and saved whole; a diagnosis of the chat can fill its
// labor and parts.
import { useEffect, useId, useState, type FormEvent } from 'react';
import {
  api,
  type AuthMethod,
  type PayType,
  type RepairOrder,
  type RoDiagnosis,
  type RoLaborInput,
  type RoLineView,
  type RoPartInput,
  type RoTotals,
  type WarrantyPayer,
} from '../api';
import { formatTimestamp } from '../files';
import { toApiError, type ApiError } from '../transport';
import { ErrorMessage, lockedProps, ReadOnlyNote } from './common';
import { t, type MessageKey } from '../i18n';
import './ComplaintLines.css';

const MONEY_CHANGED = 'servicedesk:ro-money-changed';

/** "The labor rates or tax changed": an open repair order is priced again. */
export function notifyMoneyChanged(): void {
  window.dispatchEvent(new Event(MONEY_CHANGED));
}

export const PAY_TYPES: PayType[] = ['customer', 'warranty', 'internal', 'service_contract'];
const PAYERS: WarrantyPayer[] = ['chassis', 'coach', 'component'];
const METHODS: AuthMethod[] = ['in_person', 'phone', 'signature'];

export const payLabel = (p: PayType) => t(`lines.pay.${p}` as MessageKey);
const payerLabel = (p: WarrantyPayer) => t(`lines.payer.${p}` as MessageKey);

/** A line as the form holds it: every field text, as typed. */
type Draft = {
  line_id: string | null;
  complaint: string;
  pay_type: PayType;
  warranty_payer: WarrantyPayer | '';
  warranty_maker: string;
  engine_complaint: string;
  labor: RoLaborInput[];
  parts: (RoPartInput & { part_no: string })[];
};

function draftOf(l: RoLineView | null): Draft {
  if (!l) {
    return { line_id: null, complaint: '', pay_type: 'customer', warranty_payer: '', warranty_maker: '', engine_complaint: '', labor: [], parts: [] };
  }
  return {
    line_id: l.id,
    complaint: l.complaint,
    pay_type: l.pay_type,
    warranty_payer: l.warranty_payer ?? '',
    warranty_maker: l.warranty_maker ?? '',
    engine_complaint: l.engine_complaint ?? '',
    labor: l.labor.map((x) => ({ description: x.description, hours: x.hours })),
    parts: l.parts.map((x) => ({ part_no: x.part_no, description: x.description, qty: x.qty, unit_price: x.unit_price })),
  };
}

export function ComplaintLines({
  sessionId,
  refreshKey,
  readOnly = false,
}: {
  sessionId: string;
  refreshKey: string;
  /** Finalized: no line is added, edited or answered until it is reopened. */
  readOnly?: boolean;
}) {
  const [order, setOrder] = useState<RepairOrder | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  // The line being edited: its id, 'new', or none.
  const [open, setEditing] = useState<string | null>(null);
  const editing = readOnly ? null : open;
  const noteId = useId();
  const [priced, setPriced] = useState(0);

  useEffect(() => {
    const again = () => setPriced((n) => n + 1);
    window.addEventListener(MONEY_CHANGED, again);
    return () => window.removeEventListener(MONEY_CHANGED, again);
  }, []);

  useEffect(() => {
    let alive = true;
    api.roShow(sessionId).then(
      (o) => {
        if (!alive) return;
        setOrder(o);
        setLoadError(null);
      },
      (e) => alive && setLoadError(toApiError(e)),
    );
    return () => {
      alive = false;
    };
  }, [sessionId, refreshKey, priced]);

  if (!order) {
    return (
      <section className="card ro-lines" data-testid="ro-lines-loading">
        <ErrorMessage error={loadError} testId="ro-lines-error" />
        {!loadError && <p className="muted">{t('lines.loading')}</p>}
      </section>
    );
  }

  const saved = (o: RepairOrder) => {
    setOrder(o);
    setEditing(null);
  };
  const s = order.settings;
  return (
    <section className="card ro-lines" aria-label={t('lines.title')} data-testid="ro-lines">
      <div className="card-head">
        <h3>{t('lines.title')}</h3>
        {editing === null && (
          <button type="button" className="btn" data-testid="add-line" onClick={() => setEditing('new')} {...lockedProps(readOnly, noteId)}>
            {t('lines.add')}
          </button>
        )}
      </div>
      {readOnly && <ReadOnlyNote id={noteId} testId="lines-read-only" />}
      <ol className="ro-line-list">
        {order.lines.map((l) =>
          editing === l.id ? (
            <li key={l.id} className="ro-line editing">
              <LineForm sessionId={sessionId} line={l} diagnoses={order.diagnoses} canDelete={order.lines.length > 1} onSaved={saved} onCancel={() => setEditing(null)} />
            </li>
          ) : (
            <LineItem
              key={l.id}
              sessionId={sessionId}
              line={l}
              onEdit={editing === null ? () => setEditing(l.id) : undefined}
              locked={readOnly ? noteId : null}
              onAnswered={setOrder}
            />
          ),
        )}
        {editing === 'new' && (
          <li className="ro-line editing">
            <LineForm sessionId={sessionId} line={null} diagnoses={order.diagnoses} canDelete={false} onSaved={saved} onCancel={() => setEditing(null)} />
          </li>
        )}
      </ol>
      <div className="ro-total" data-testid="ro-total">
        <TotalsRow totals={order.totals} testId="ro-totals" strong />
        <p className="muted small" data-testid="ro-tax-note">
          {t(s.labor_taxable ? 'lines.taxNoteLabor' : 'lines.taxNote', { rate: s.tax_rate })}
        </p>
      </div>
    </section>
  );
}

function TotalsRow({ totals, testId, strong }: { totals: RoTotals; testId: string; strong?: boolean }) {
  return (
    <dl className={`ro-totals${strong ? ' strong' : ''}`} data-testid={testId}>
      <dt>{t('lines.totalLabor')}</dt>
      <dd data-testid={`${testId}-labor`}>{totals.labor}</dd>
      <dt>{t('lines.totalParts')}</dt>
      <dd data-testid={`${testId}-parts`}>{totals.parts}</dd>
      <dt>{t('lines.totalTax')}</dt>
      <dd data-testid={`${testId}-tax`}>{totals.tax}</dd>
      <dt>{strong ? t('lines.roTotal') : t('lines.total')}</dt>
      <dd data-testid={`${testId}-total`}>{totals.total}</dd>
    </dl>
  );
}

function LineItem({
  sessionId,
  line: l,
  onEdit,
  locked,
  onAnswered,
}: {
  sessionId: string;
  line: RoLineView;
  onEdit?: () => void;
  /** The id of the note saying why nothing can be changed, when it cannot. */
  locked: string | null;
  onAnswered: (o: RepairOrder) => void;
}) {
  const [open, setAnswering] = useState(false);
  const answering = open && !locked;
  const payer = l.warranty_payer ? ` · ${l.warranty_maker ?? payerLabel(l.warranty_payer)}` : '';
  const a = l.authorization;
  const hasEstimate = l.labor.length + l.parts.length > 0;
  return (
    <li className="ro-line" data-testid="ro-line" data-line-no={l.line_no} data-pay-type={l.pay_type} data-auth={a.status}>
      <div className="ro-line-head">
        <span className="ro-line-no">{l.line_no}.</span>
        <span className="ro-line-complaint" data-testid="ro-line-complaint">
          {l.complaint}
        </span>
        <span className={`chip pay-${l.pay_type}`} data-testid="ro-line-pay">
          {payLabel(l.pay_type)}
          {payer}
        </span>
        {onEdit && (
          <button type="button" className="btn link" data-testid="edit-line" onClick={onEdit} {...lockedProps(!!locked, locked ?? '')}>
            {t('lines.edit')}
          </button>
        )}
      </div>
      {l.labor.length + l.parts.length === 0 ? (
        <p className="muted small">{t('lines.noItems')}</p>
      ) : (
        <table className="ro-items">
          <thead>
            <tr>
              <th scope="col">{t('lines.description')}</th>
              <th scope="col" className="num">
                {t('lines.qtyOrHours')}
              </th>
              <th scope="col" className="num">
                {t('lines.unitPrice')}
              </th>
              <th scope="col" className="num">
                {t('lines.amount')}
              </th>
            </tr>
          </thead>
          <tbody>
            {l.labor.map((x, i) => (
              <tr key={`l${i}`} data-testid="ro-labor-row">
                <td>{x.description}</td>
                <td className="num">{t('lines.hoursShort', { n: x.hours })}</td>
                <td className="num">{l.labor_rate}</td>
                <td className="num" data-testid="ro-labor-amount">
                  {x.amount}
                </td>
              </tr>
            ))}
            {l.parts.map((x, i) => (
              <tr key={`p${i}`} data-testid="ro-part-row">
                <td>
                  {x.part_no && <span className="mono">{x.part_no} </span>}
                  {x.description}
                </td>
                <td className="num">{x.qty}</td>
                <td className="num">{x.unit_price}</td>
                <td className="num" data-testid="ro-part-amount">
                  {x.amount}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <TotalsRow totals={l.totals} testId="ro-line-totals" />
      <div className="ro-auth">
        <span className={`chip auth-${a.status}`} data-testid="ro-line-auth">
          {a.status === 'pending'
            ? t('auth.pending')
            : t(a.status === 'approved' ? 'auth.approvedBy' : 'auth.declinedBy', {
                who: a.by ?? '—',
                how: a.method ? t(`auth.method.${a.method}` as MessageKey) : '—',
                when: a.at ? formatTimestamp(a.at) : '—',
              })}
        </span>
        {hasEstimate && !answering && onEdit && (
          <button type="button" className="btn link" data-testid="answer-estimate" onClick={() => setAnswering(true)} {...lockedProps(!!locked, locked ?? '')}>
            {t('auth.record')}
          </button>
        )}
      </div>
      {hasEstimate && !l.isolated && a.status !== 'approved' && (
        <p className="muted small" id={`${l.id}-not-isolated`} data-testid="approve-blocked">
          {t('auth.notIsolated')}
        </p>
      )}
      {answering && (
        <AnswerForm
          sessionId={sessionId}
          lineId={l.id}
          isolated={l.isolated}
          onDone={(o) => {
            setAnswering(false);
            if (o) onAnswered(o);
          }}
        />
      )}
    </li>
  );
}

function AnswerForm({
  sessionId,
  lineId,
  isolated,
  onDone,
}: {
  sessionId: string;
  lineId: string;
  /** Whether the line's diagnosis has isolated a cause: only then can it be approved. */
  isolated: boolean;
  onDone: (o: RepairOrder | null) => void;
}) {
  const [decision, setDecision] = useState<'approved' | 'declined'>(isolated ? 'approved' : 'declined');
  const [by, setBy] = useState('');
  const [method, setMethod] = useState<AuthMethod>('in_person');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      onDone(await api.roLineAuthorize(sessionId, { line_id: lineId, decision, by, method }));
    } catch (err) {
      setError(toApiError(err));
      setBusy(false);
    }
  }

  return (
    <form className="ro-answer-form" onSubmit={save} noValidate data-testid="answer-form">
      <div className="field-grid">
        <label className="field">
          <span>{t('auth.decision')}</span>
          <select
            data-testid="answer-decision"
            value={decision}
            onChange={(e) => setDecision(e.target.value as 'approved' | 'declined')}
            aria-describedby={isolated ? undefined : `${lineId}-not-isolated`}
          >
            <option value="approved" disabled={!isolated}>
              {isolated ? t('auth.approve') : t('auth.approveNotYet')}
            </option>
            <option value="declined">{t('auth.decline')}</option>
          </select>
        </label>
        <label className="field">
          <span>{t('auth.method')}</span>
          <select data-testid="answer-method" value={method} onChange={(e) => setMethod(e.target.value as AuthMethod)}>
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {t(`auth.method.${m}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>{t('auth.by')}</span>
          <input data-testid="answer-by" value={by} onChange={(e) => setBy(e.target.value)} data-autofocus />
        </label>
      </div>
      <ErrorMessage error={error} testId="answer-error" />
      <div className="form-actions">
        <button type="button" className="btn" onClick={() => onDone(null)} disabled={busy}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn primary" data-testid="save-answer" disabled={busy}>
          {busy ? t('common.saving') : t('auth.save')}
        </button>
      </div>
    </form>
  );
}

function LineForm({
  sessionId,
  line,
  diagnoses,
  canDelete,
  onSaved,
  onCancel,
}: {
  sessionId: string;
  line: RoLineView | null;
  diagnoses: RoDiagnosis[];
  canDelete: boolean;
  onSaved: (o: RepairOrder) => void;
  onCancel: () => void;
}) {
  const [d, setD] = useState<Draft>(() => draftOf(line));
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<Draft>) => setD((x) => ({ ...x, ...patch }));
  const diagnosis = diagnoses.find((x) => x.key === d.engine_complaint);

  async function save(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const warranty = d.pay_type === 'warranty';
      onSaved(
        await api.roLineSave(sessionId, {
          line_id: d.line_id,
          complaint: d.complaint,
          pay_type: d.pay_type,
          warranty_payer: warranty && d.warranty_payer ? d.warranty_payer : null,
          warranty_maker: warranty && d.warranty_payer === 'component' ? d.warranty_maker : null,
          engine_complaint: d.engine_complaint || null,
          labor: d.labor,
          parts: d.parts,
        }),
      );
    } catch (err) {
      setError(toApiError(err));
    } finally {
      setBusy(false);
    }
  }

  async function remove() {
    if (!d.line_id || busy) return;
    setBusy(true);
    setError(null);
    try {
      onSaved(await api.roLineDelete(sessionId, d.line_id));
    } catch (err) {
      setError(toApiError(err));
      setBusy(false);
    }
  }

  const setLabor = (i: number, patch: Partial<RoLaborInput>) =>
    set({ labor: d.labor.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
  const setPart = (i: number, patch: Partial<Draft['parts'][number]>) =>
    set({ parts: d.parts.map((x, j) => (j === i ? { ...x, ...patch } : x)) });

  return (
    <form className="ro-line-form" onSubmit={save} noValidate data-testid="line-form">
      <label className="field full">
        <span>{t('lines.complaint')}</span>
        <input data-testid="line-complaint" value={d.complaint} onChange={(e) => set({ complaint: e.target.value })} data-autofocus />
      </label>
      <div className="field-grid">
        <label className="field">
          <span>{t('lines.payType')}</span>
          <select data-testid="line-pay-type" value={d.pay_type} onChange={(e) => set({ pay_type: e.target.value as PayType })}>
            {PAY_TYPES.map((p) => (
              <option key={p} value={p}>
                {payLabel(p)}
              </option>
            ))}
          </select>
        </label>
        {d.pay_type === 'warranty' && (
          <label className="field">
            <span>{t('lines.payer')}</span>
            <select data-testid="line-payer" value={d.warranty_payer} onChange={(e) => set({ warranty_payer: e.target.value as WarrantyPayer | '' })}>
              <option value="">—</option>
              {PAYERS.map((p) => (
                <option key={p} value={p}>
                  {payerLabel(p)}
                </option>
              ))}
            </select>
          </label>
        )}
        {d.pay_type === 'warranty' && d.warranty_payer === 'component' && (
          <label className="field">
            <span>{t('lines.maker')}</span>
            <input data-testid="line-maker" value={d.warranty_maker} onChange={(e) => set({ warranty_maker: e.target.value })} />
          </label>
        )}
        <label className="field">
          <span>{t('lines.diagnosis')}</span>
          <select data-testid="line-diagnosis" value={d.engine_complaint} onChange={(e) => set({ engine_complaint: e.target.value })}>
            <option value="">{t('lines.noDiagnosis')}</option>
            {diagnoses.map((x) => (
              <option key={x.key} value={x.key}>
                {x.title}
              </option>
            ))}
          </select>
        </label>
      </div>
      {diagnosis && (diagnosis.labor.length > 0 || diagnosis.parts.length > 0) && (
        <p className="ro-diagnosis small">
          {diagnosis.cause && <span className="muted">{diagnosis.cause} </span>}
          <button
            type="button"
            className="btn"
            data-testid="line-use-diagnosis"
            onClick={() =>
              set({
                labor: diagnosis.labor.map((x) => ({ ...x })),
                parts: diagnosis.parts.map((x) => ({ ...x, part_no: x.part_no ?? '' })),
              })
            }
          >
            {t('lines.useDiagnosis')}
          </button>
        </p>
      )}
      <fieldset className="ro-items-edit">
        <legend>{t('lines.labor')}</legend>
        {d.labor.map((x, i) => (
          <div className="ro-item-row" key={i} data-testid="labor-row">
            <input aria-label={t('lines.description')} placeholder={t('lines.description')} data-testid="labor-description" value={x.description} onChange={(e) => setLabor(i, { description: e.target.value })} />
            <input aria-label={t('lines.hours')} placeholder={t('lines.hours')} className="num" inputMode="decimal" data-testid="labor-hours" value={x.hours} onChange={(e) => setLabor(i, { hours: e.target.value })} />
            <button type="button" className="btn link" onClick={() => set({ labor: d.labor.filter((_, j) => j !== i) })}>
              {t('lines.remove')}
            </button>
          </div>
        ))}
        <button type="button" className="btn" data-testid="add-labor" onClick={() => set({ labor: [...d.labor, { description: '', hours: '' }] })}>
          {t('lines.addLabor')}
        </button>
      </fieldset>
      <fieldset className="ro-items-edit">
        <legend>{t('lines.parts')}</legend>
        {d.parts.map((x, i) => (
          <div className="ro-item-row parts" key={i} data-testid="part-row">
            <input aria-label={t('lines.partNo')} placeholder={t('lines.partNo')} className="mono" data-testid="part-no" value={x.part_no} onChange={(e) => setPart(i, { part_no: e.target.value })} />
            <input aria-label={t('lines.description')} placeholder={t('lines.description')} data-testid="part-description" value={x.description} onChange={(e) => setPart(i, { description: e.target.value })} />
            <input aria-label={t('lines.qty')} placeholder={t('lines.qty')} className="num" inputMode="decimal" data-testid="part-qty" value={x.qty} onChange={(e) => setPart(i, { qty: e.target.value })} />
            <input aria-label={t('lines.unitPrice')} placeholder={t('lines.unitPrice')} className="num" inputMode="decimal" data-testid="part-price" value={x.unit_price} onChange={(e) => setPart(i, { unit_price: e.target.value })} />
            <button type="button" className="btn link" onClick={() => set({ parts: d.parts.filter((_, j) => j !== i) })}>
              {t('lines.remove')}
            </button>
          </div>
        ))}
        <button
          type="button"
          className="btn"
          data-testid="add-part"
          onClick={() => set({ parts: [...d.parts, { part_no: '', description: '', qty: '1', unit_price: '' }] })}
        >
          {t('lines.addPart')}
        </button>
      </fieldset>
      <ErrorMessage error={error} testId="line-error" />
      <div className="form-actions">
        {canDelete && d.line_id && (
          <button type="button" className="btn danger" data-testid="delete-line" onClick={remove} disabled={busy}>
            {t('lines.delete')}
          </button>
        )}
        <button type="button" className="btn" onClick={onCancel} disabled={busy}>
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn primary" data-testid="save-line" disabled={busy}>
          {busy ? t('common.saving') : t('lines.save')}
        </button>
      </div>
    </form>
  );
}
