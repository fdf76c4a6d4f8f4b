// The billing rules: each with its scope, status and time zone, its versions
// drawn on one validity axis (the version in force now marked), and the
// selected version's payload in words and as a table.

import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { BillingRule, BillingSegment, RuleVersion } from '../api';
import {
  formatMoney,
  payloadSummary,
  ruleScope,
  ruleStatusLabel,
  validityLayout,
  versionSpan,
  versionState,
  wallNow,
  type VersionState,
} from '../billing';
import type { ApiError } from '../transport';
import { ErrorMessage } from './common';
import { t as tr, type MessageKey } from '../i18n';

export interface RuleSelection {
  rule_code: string;
  version_no?: number;
  seq: number;
}

const STATE_KEY: Record<VersionState, MessageKey> = { current: 'rules.current', past: 'rules.past', future: 'rules.future' };
const stateLabel = (s: VersionState) => tr(STATE_KEY[s]);

export function BillingRules({
  rules,
  error,
  loading,
  onReload,
  select,
  onSimulate,
  fresh,
}: {
  rules: BillingRule[] | null;
  error: ApiError | null;
  loading: boolean;
  onReload: () => void;
  /** A citation chip or a verification asked for this rule (and version). */
  select: RuleSelection | null;
  onSimulate: (ruleCode: string) => void;
  /** Rule codes the last import brought in. */
  fresh: Set<string>;
}) {
  const [selected, setSelected] = useState<{ rule_code: string; version_no: number } | null>(null);
  const [filter, setFilter] = useState('');
  const card = useRef<HTMLElement>(null);
  const detail = useRef<HTMLDivElement>(null);
  const id = useId();
  const all = rules ?? [];

  // The now of each rule's site.
  const nows = useMemo(() => new Map(all.map((r) => [r.rule_code, wallNow(r.time_zone)])), [all]);
  // One axis for all rules (so versions can be compared across rules).
  const layout = useMemo(() => validityLayout(all.flatMap((r) => r.versions), wallNow('UTC')), [all]);
  const barsByRule = useMemo(() => {
    const m = new Map<string, typeof layout.bars>();
    let i = 0;
    for (const r of all) {
      m.set(r.rule_code, layout.bars.slice(i, i + r.versions.length));
      i += r.versions.length;
    }
    return m;
  }, [all, layout]);

  // A request from outside: select that rule (its cited version, else the one in force) and bring it into view.
  useEffect(() => {
    if (!select) return;
    setFilter('');
    const r = all.find((x) => x.rule_code === select.rule_code);
    const v = r && (r.versions.find((x) => x.version_no === select.version_no) ?? currentOrLast(r, nows.get(r.rule_code)));
    setSelected({ rule_code: select.rule_code, version_no: v?.version_no ?? select.version_no ?? 1 });
    setTimeout(() => (detail.current ?? card.current)?.scrollIntoView?.({ block: 'nearest' }), 0);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [select, rules]);

  const q = filter.trim().toLowerCase();
  const shown = q
    ? all.filter((r) => [r.rule_code, r.name, r.city_code, ...r.lot_codes].some((s) => s.toLowerCase().includes(q)))
    : all;
  const selRule = selected ? all.find((r) => r.rule_code === selected.rule_code) ?? null : null;
  const selVersion = selRule?.versions.find((v) => v.version_no === selected?.version_no) ?? null;

  return (
    <section ref={card} className="card billing-rules" aria-labelledby={`${id}-h`} data-testid="billing-rules">
      <div className="card-head">
        <h3 id={`${id}-h`}>
          {tr('rules.heading')}{' '}
          <span className="muted">({shown.length === all.length ? all.length : tr('common.xOfY', { x: shown.length, y: all.length })})</span>
        </h3>
        <div className="head-tools">
          <label className="field inline">
            <span>{tr('sources.find')}</span>
            <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder={tr('rules.findPlaceholder')} data-testid="rules-filter" />
          </label>
          <button type="button" className="btn link" onClick={onReload} disabled={loading} aria-busy={loading} data-testid="rules-reload">
            {loading ? tr('common.loadingCap') : tr('common.reload')}
          </button>
        </div>
      </div>
      <ErrorMessage error={error} testId="rules-error" />
      {rules === null && !error ? (
        <p className="muted" aria-busy="true">
          {tr('rules.loading')}
        </p>
      ) : shown.length === 0 ? (
        <p className="empty" data-testid="rules-empty">
          {all.length === 0 ? tr('rules.empty') : tr('rules.noMatch')}
        </p>
      ) : (
        <div className="table-scroll rules-scroll" tabIndex={0} role="region" aria-label={tr('rules.table')}>
          <table className="sources-table rules-table" data-testid="rules-table">
            <thead>
              <tr>
                <th scope="col">{tr('rules.rule')}</th>
                <th scope="col">{tr('sources.col.scope')}</th>
                <th scope="col">{tr('rules.status')}</th>
                <th scope="col">{tr('rules.timeZone')}</th>
                <th scope="col" className="validity-col">
                  <div className="validity-axis" aria-hidden="true">
                    {layout.ticks.map((t) => (
                      <span key={t.label} className="month-tick" style={{ left: `${t.left}%` }}>
                        {t.label}
                      </span>
                    ))}
                  </div>
                  <span className="sr-only">{tr('rules.versionsValidity')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => {
                const now = nows.get(r.rule_code) ?? wallNow('UTC');
                const bars = barsByRule.get(r.rule_code) ?? [];
                return (
                  <tr
                    key={r.rule_code}
                    className={`${r.status !== 'active' ? 'state-inactive' : ''}${fresh.has(r.rule_code) ? ' is-new' : ''}${
                      selected?.rule_code === r.rule_code ? ' is-selected' : ''
                    }`}
                    data-testid="rule-row"
                    data-rule-code={r.rule_code}
                    data-versions={r.versions.length}
                  >
                    <th scope="row">
                      <code className="rule-code">{r.rule_code}</code>
                      {fresh.has(r.rule_code) && <span className="badge new-badge">{tr('ingest.new')}</span>}
                      <div className="muted small">{r.name}</div>
                    </th>
                    <td data-testid="rule-scope">{ruleScope(r)}</td>
                    <td>
                      <span className={`badge rule-status ${r.status}`} data-testid="rule-status">
                        {ruleStatusLabel(r.status)}
                      </span>
                    </td>
                    <td className="nowrap small">{r.time_zone}</td>
                    <td className="validity-col">
                      <div className="validity-track" role="group" aria-label={tr('rules.versionsOf', { code: r.rule_code })}>
                        {layout.now != null && <span className="now-line" style={{ left: `${layout.now}%` }} title={tr('rules.now')} aria-hidden="true" />}
                        {r.versions.map((v, i) => {
                          const bar = bars[i];
                          const state = versionState(v, now);
                          const isSel = selected?.rule_code === r.rule_code && selected.version_no === v.version_no;
                          return (
                            <button
                              key={v.version_no}
                              type="button"
                              className={`version-bar ${state}${bar?.open ? ' open' : ''}${isSel ? ' selected' : ''}`}
                              style={bar ? { left: `${bar.left}%`, width: `${bar.width}%` } : undefined}
                              aria-pressed={isSel}
                              aria-label={tr('rules.barLabel', { code: r.rule_code, span: versionSpan(v), state: stateLabel(state) })}
                              title={`${versionSpan(v)} · ${stateLabel(state)}`}
                              data-testid="version-bar"
                              data-version={v.version_no}
                              data-state={state}
                              onClick={() => setSelected({ rule_code: r.rule_code, version_no: v.version_no })}
                            >
                              v{v.version_no}
                              {state === 'current' && <span className="now-dot" aria-hidden="true"> ●</span>}
                            </button>
                          );
                        })}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div ref={detail} className="version-detail-region" aria-live="polite">
        {selRule && selVersion ? (
          <VersionDetail rule={selRule} version={selVersion} state={versionState(selVersion, nows.get(selRule.rule_code) ?? wallNow('UTC'))} onSimulate={onSimulate} />
        ) : (
          <p className="muted small version-hint">{tr('rules.hint')}</p>
        )}
      </div>
    </section>
  );
}

function currentOrLast(r: BillingRule, now: string | undefined): RuleVersion | undefined {
  return r.versions.find((v) => versionState(v, now ?? wallNow(r.time_zone)) === 'current') ?? r.versions[r.versions.length - 1];
}

function VersionDetail({ rule, version, state, onSimulate }: { rule: BillingRule; version: RuleVersion; state: VersionState; onSimulate: (c: string) => void }) {
  const p = version.payload;
  return (
    <div className="version-detail" data-testid="version-detail" data-rule-code={rule.rule_code} data-version={version.version_no}>
      <div className="version-detail-head">
        <h4>
          <code>{rule.rule_code}</code> v{version.version_no} <span className="muted">· {rule.name}</span>
        </h4>
        <span className={`badge version-state ${state}`} data-testid="version-state">
          {stateLabel(state)}
        </span>
        <button type="button" className="btn" onClick={() => onSimulate(rule.rule_code)} data-testid="simulate-with-rule">
          {tr('rules.simulateWith')}
        </button>
      </div>
      <p className="muted small" data-testid="version-span">
        {versionSpan(version)} · {tr('rules.siteTime', { tz: rule.time_zone })} · {ruleScope(rule)}
      </p>
      <ul className="payload-summary" data-testid="payload-summary">
        {payloadSummary(p).map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
      <div className="table-scroll">
        <table className="sources-table segments-table" data-testid="segments-table">
          <caption className="sr-only">{tr('rules.segmentsOf', { code: rule.rule_code, version: version.version_no })}</caption>
          <thead>
            <tr>
              <th scope="col">{tr('breakdown.segment')}</th>
              <th scope="col">{tr('rules.window')}</th>
              <th scope="col">{tr('knowledge.type')}</th>
              <th scope="col" className="num">
                {tr('rules.unit')}
              </th>
              <th scope="col">{tr('rules.price')}</th>
              <th scope="col" className="num">
                {tr('breakdown.cap')}
              </th>
            </tr>
          </thead>
          <tbody>
            {p.segments.map((s, i) => (
              <tr key={i} data-testid="segment-row">
                <th scope="row">{s.name}</th>
                <td className="nowrap">{s.window}</td>
                <td>{s.type}</td>
                <td className="num nowrap">{s.unit_minutes ? tr('rules.minutes', { n: s.unit_minutes }) : '—'}</td>
                <td>{priceText(s)}</td>
                <td className="num">{s.cap ? formatMoney(s.cap) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <details className="raw-payload">
        <summary>{tr('rules.rawPayload')}</summary>
        <pre>{JSON.stringify(p, null, 2)}</pre>
      </details>
    </div>
  );
}

function priceText(s: BillingSegment): string {
  if (s.type === 'free') return tr('rules.free');
  if (s.type === 'periodic') return tr('rules.perUnit', { price: formatMoney(s.unit_price) });
  if (s.type === 'tiered')
    return (s.tiers ?? [])
      .map((x) =>
        x.up_to_minutes == null
          ? tr('rules.tierAfter', { price: formatMoney(x.unit_price) })
          : tr('rules.tierBefore', { price: formatMoney(x.unit_price), n: x.up_to_minutes }),
      )
      .join('; ');
  return '—';
}
