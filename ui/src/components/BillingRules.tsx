// The billing rules: each with its scope, status and time zone, its versions
// drawn on one validity axis (the version in force now marked), and the
// selected version's payload in words and as a table.

import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { BillingRule, BillingSegment, RuleVersion } from '../api';
import {
  formatMoney,
  payloadSummary,
  ruleScope,
  validityLayout,
  versionSpan,
  versionState,
  wallNow,
  type VersionState,
} from '../billing';
import type { ApiError } from '../transport';
import { ErrorMessage } from './common';

export interface RuleSelection {
  rule_code: string;
  version_no?: number;
  seq: number;
}

const STATE_LABEL: Record<VersionState, string> = { current: 'In force now', past: 'Ended', future: 'Not yet in force' };

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
          Rules <span className="muted">({shown.length === all.length ? all.length : `${shown.length} of ${all.length}`})</span>
        </h3>
        <div className="head-tools">
          <label className="field inline">
            <span>Find</span>
            <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="Code, name, city or lot" data-testid="rules-filter" />
          </label>
          <button type="button" className="btn link" onClick={onReload} disabled={loading} aria-busy={loading} data-testid="rules-reload">
            {loading ? 'Loading…' : 'Reload'}
          </button>
        </div>
      </div>
      <ErrorMessage error={error} testId="rules-error" />
      {rules === null && !error ? (
        <p className="muted" aria-busy="true">
          Loading rules…
        </p>
      ) : shown.length === 0 ? (
        <p className="empty" data-testid="rules-empty">
          {all.length === 0 ? 'No rules yet. Load the demo data or import a rules file.' : 'No rule matches.'}
        </p>
      ) : (
        <div className="table-scroll rules-scroll" tabIndex={0} role="region" aria-label="Rules and their versions">
          <table className="sources-table rules-table" data-testid="rules-table">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Scope</th>
                <th scope="col">Status</th>
                <th scope="col">Time zone</th>
                <th scope="col" className="validity-col">
                  <div className="validity-axis" aria-hidden="true">
                    {layout.ticks.map((t) => (
                      <span key={t.label} className="month-tick" style={{ left: `${t.left}%` }}>
                        {t.label}
                      </span>
                    ))}
                  </div>
                  <span className="sr-only">Versions and their validity</span>
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
                      {fresh.has(r.rule_code) && <span className="badge new-badge">New</span>}
                      <div className="muted small">{r.name}</div>
                    </th>
                    <td data-testid="rule-scope">{ruleScope(r)}</td>
                    <td>
                      <span className={`badge rule-status ${r.status}`} data-testid="rule-status">
                        {r.status}
                      </span>
                    </td>
                    <td className="nowrap small">{r.time_zone}</td>
                    <td className="validity-col">
                      <div className="validity-track" role="group" aria-label={`Versions of ${r.rule_code}`}>
                        {layout.now != null && <span className="now-line" style={{ left: `${layout.now}%` }} title="Now" aria-hidden="true" />}
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
                              aria-label={`${r.rule_code} ${versionSpan(v)}, ${STATE_LABEL[state]}: show its payload`}
                              title={`${versionSpan(v)} · ${STATE_LABEL[state]}`}
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
          <p className="muted small version-hint">Select a version bar to see what it charges. The bar with ● is the version in force now.</p>
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
          {STATE_LABEL[state]}
        </span>
        <button type="button" className="btn" onClick={() => onSimulate(rule.rule_code)} data-testid="simulate-with-rule">
          Simulate with this rule
        </button>
      </div>
      <p className="muted small" data-testid="version-span">
        {versionSpan(version)} · site time {rule.time_zone} · {ruleScope(rule)}
      </p>
      <ul className="payload-summary" data-testid="payload-summary">
        {payloadSummary(p).map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
      <div className="table-scroll">
        <table className="sources-table segments-table" data-testid="segments-table">
          <caption className="sr-only">Segments of {rule.rule_code} version {version.version_no}</caption>
          <thead>
            <tr>
              <th scope="col">Segment</th>
              <th scope="col">Window</th>
              <th scope="col">Type</th>
              <th scope="col" className="num">
                Unit
              </th>
              <th scope="col">Price</th>
              <th scope="col" className="num">
                Cap
              </th>
            </tr>
          </thead>
          <tbody>
            {p.segments.map((s, i) => (
              <tr key={i} data-testid="segment-row">
                <th scope="row">{s.name}</th>
                <td className="nowrap">{s.window}</td>
                <td>{s.type}</td>
                <td className="num nowrap">{s.unit_minutes ? `${s.unit_minutes} min` : '—'}</td>
                <td>{priceText(s)}</td>
                <td className="num">{s.cap ? formatMoney(s.cap) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <details className="raw-payload">
        <summary>Payload as stored (JSON)</summary>
        <pre>{JSON.stringify(p, null, 2)}</pre>
      </details>
    </div>
  );
}

function priceText(s: BillingSegment): string {
  if (s.type === 'free') return 'free';
  if (s.type === 'periodic') return `${formatMoney(s.unit_price)} per unit`;
  if (s.type === 'tiered')
    return (s.tiers ?? [])
      .map((t) => (t.up_to_minutes == null ? `${formatMoney(t.unit_price)} after` : `${formatMoney(t.unit_price)} before ${t.up_to_minutes} min`))
      .join('; ');
  return '—';
}
