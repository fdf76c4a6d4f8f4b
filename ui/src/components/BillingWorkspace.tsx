// The billing workspace: rules with their validity timeline, the rule
// editor, the simulator, orders and arrears, fee verification, imports and
// the demo data.

import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type BillingRule, type DemoReport } from '../api';
import { demoSummary } from '../billing';
import type { RuleTarget } from '../events';
import { toApiError, type ApiError } from '../transport';
import { BillingImport } from './BillingImport';
import { BillingOrders } from './BillingOrders';
import { BillingRuleEditor } from './BillingRuleEditor';
import { BillingRules, type RuleSelection } from './BillingRules';
import { BillingSimulator } from './BillingSimulator';
import { BillingVerify } from './BillingVerify';
import { ErrorMessage } from './common';
import { t } from '../i18n';

export function BillingWorkspace({ showRule }: { showRule: (RuleTarget & { seq: number }) | null }) {
  const [rules, setRules] = useState<BillingRule[] | null>(null);
  const [rulesError, setRulesError] = useState<ApiError | null>(null);
  const [rulesLoading, setRulesLoading] = useState(false);
  const [rulesVersion, setRulesVersion] = useState(0);
  const [ordersVersion, setOrdersVersion] = useState(0);
  const [freshRules, setFreshRules] = useState<Set<string>>(new Set());
  const [select, setSelect] = useState<RuleSelection | null>(null);
  const [preset, setPreset] = useState<{ rule_code: string; seq: number } | null>(null);
  const [verifyReq, setVerifyReq] = useState<{ order_no: string; seq: number } | null>(null);
  const [demo, setDemo] = useState<{ busy: boolean; report: DemoReport | null; error: ApiError | null }>({ busy: false, report: null, error: null });
  const seq = useRef(0);
  const n = useRef(0);
  const next = () => ++n.current;

  useEffect(() => {
    const mine = ++seq.current;
    setRulesLoading(true);
    api.billingRules().then(
      (r) => {
        if (mine !== seq.current) return;
        setRules(r.rules);
        setRulesError(null);
        setRulesLoading(false);
      },
      (e) => {
        if (mine !== seq.current) return;
        setRulesError(toApiError(e));
        setRulesLoading(false);
      },
    );
  }, [rulesVersion]);

  const reloadRules = useCallback(() => setRulesVersion((v) => v + 1), []);

  // A rule citation chip in the chat.
  useEffect(() => {
    if (showRule) setSelect({ rule_code: showRule.rule_code, version_no: showRule.version_no, seq: next() });
  }, [showRule]);

  const onShowRule = useCallback((rule_code: string, version_no?: number) => setSelect({ rule_code, version_no, seq: next() }), []);

  async function loadDemo() {
    setDemo({ busy: true, report: demo.report, error: null });
    try {
      const report = await api.billingSeedDemo();
      setDemo({ busy: false, report, error: null });
      setFreshRules(new Set(report.rules.imported.map((i) => i.key)));
      reloadRules();
      setOrdersVersion((v) => v + 1);
    } catch (e) {
      setDemo({ busy: false, report: null, error: toApiError(e) });
    }
  }

  return (
    <div className="knowledge billing" data-testid="billing-workspace">
      <div className="knowledge-head billing-head">
        <div>
          <h2>{t('workspace.billing')}</h2>
          <p className="muted small">
            {t('billing.intro')}
          </p>
        </div>
        <div className="demo-box">
          <button type="button" className="btn" onClick={() => void loadDemo()} disabled={demo.busy} aria-busy={demo.busy} data-testid="billing-demo">
            {demo.busy ? t('billing.demoLoading') : t('billing.demo')}
          </button>
          <span className="muted small demo-result" role="status" aria-live="polite" data-testid="billing-demo-result">
            {demo.report ? demoSummary(demo.report) : ''}
          </span>
          <ErrorMessage error={demo.error} testId="billing-demo-error" />
        </div>
      </div>
      <BillingRules
        rules={rules}
        error={rulesError}
        loading={rulesLoading}
        onReload={reloadRules}
        select={select}
        onSimulate={(rule_code) => setPreset({ rule_code, seq: next() })}
        fresh={freshRules}
      />
      <BillingRuleEditor
        rules={rules}
        onSaved={(rule_code, version_no) => {
          setFreshRules(new Set([rule_code]));
          reloadRules();
          setSelect({ rule_code, version_no, seq: next() });
        }}
      />
      <BillingSimulator rules={rules} preset={preset} onShowRule={onShowRule} />
      <div className="billing-grid">
        <BillingOrders version={ordersVersion} onVerify={(order_no) => setVerifyReq({ order_no, seq: next() })} />
        <BillingVerify request={verifyReq} onShowRule={onShowRule} />
      </div>
      <BillingImport
        onImported={(kind, keys) => {
          if (kind === 'rules') {
            setFreshRules(new Set(keys));
            reloadRules();
          } else {
            setOrdersVersion((v) => v + 1);
          }
        }}
      />
    </div>
  );
}
