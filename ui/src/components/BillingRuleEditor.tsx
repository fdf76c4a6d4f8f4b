// The rule editor: a form that creates a rule with its first version
// (billing_rule_create) and one that adds a version to a stored rule
// (billing_rule_version_add). The backend checks both as an import checks a
// record and names every wrong field; each message is shown beside its field.

import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { api, type BillingRule } from '../api';
import { PAYLOAD_TEMPLATE, ruleCreatePayload, ruleFieldErrors, versionAddPayload, type RuleForm, type RuleFormField, type VersionForm } from '../billing';
import { ApiError, toApiError } from '../transport';
import { ErrorMessage } from './common';
import { t, type MessageKey } from '../i18n';

type Mode = 'create' | 'version';
type FieldErrors = Partial<Record<RuleFormField, string>>;

/** The browser's zone, the likeliest zone of the shop's own lot. */
function localZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

const emptyRule = (): RuleForm => ({
  rule_code: '',
  name: '',
  city_code: '',
  lot_codes: '',
  time_zone: localZone(),
  status: 'active',
  effective_from: '',
  effective_to: '',
  payload: PAYLOAD_TEMPLATE,
});

const emptyVersion = (): VersionForm => ({ rule_code: '', effective_from: '', effective_to: '', payload: PAYLOAD_TEMPLATE });

/** A version form for `rule`: its newest tariff to start from, starting where the newest version ends. */
function versionFor(rule: BillingRule | undefined, code: string): VersionForm {
  const newest = rule?.versions[rule.versions.length - 1];
  return {
    rule_code: code,
    effective_from: newest?.effective_to ?? '',
    effective_to: '',
    payload: newest ? JSON.stringify(newest.payload, null, 2) : PAYLOAD_TEMPLATE,
  };
}

const LABEL: Record<RuleFormField, MessageKey> = {
  rule_code: 'ruleEditor.ruleCode',
  name: 'ruleEditor.name',
  city_code: 'knowledge.city',
  lot_codes: 'ruleEditor.lots',
  time_zone: 'rules.timeZone',
  status: 'rules.status',
  effective_from: 'ruleEditor.from',
  effective_to: 'ruleEditor.to',
  payload: 'ruleEditor.payload',
};

export function BillingRuleEditor({
  rules,
  onSaved,
}: {
  rules: BillingRule[] | null;
  /** A rule was created or given a version: reload the rules and show that version. */
  onSaved: (ruleCode: string, versionNo: number) => void;
}) {
  const [mode, setMode] = useState<Mode>('create');
  const [rule, setRule] = useState<RuleForm>(emptyRule);
  const [version, setVersion] = useState<VersionForm>(emptyVersion);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<ApiError | null>(null);
  const [done, setDone] = useState('');
  const [busy, setBusy] = useState(false);
  const id = useId();
  const all = rules ?? [];

  function clearErrors() {
    setFieldErrors({});
    setError(null);
  }

  function switchMode(m: Mode) {
    setMode(m);
    clearErrors();
    setDone('');
  }

  const forget = (k: RuleFormField) => {
    setFieldErrors((e) => (e[k] ? { ...e, [k]: undefined } : e));
    setDone('');
  };
  const setR = <K extends keyof RuleForm>(k: K, v: RuleForm[K]) => {
    setRule((f) => ({ ...f, [k]: v }));
    forget(k);
  };
  const setV = <K extends keyof VersionForm>(k: K, v: VersionForm[K]) => {
    setVersion((f) => ({ ...f, [k]: v }));
    forget(k);
  };

  /** A refused save: each message beside its field, the rest under the form. */
  function showError(e: unknown) {
    const err = toApiError(e);
    const split = ruleFieldErrors(err.message);
    const visible = mode === 'create' ? RULE_FIELDS : VERSION_FIELDS;
    const fields: FieldErrors = {};
    const other = [...split.other];
    for (const [k, msg] of Object.entries(split.fields) as [RuleFormField, string][]) {
      if (visible.includes(k)) fields[k] = msg;
      else other.push(`${k}: ${msg}`);
    }
    setFieldErrors(fields);
    // The code's advice always shows; the message only for what no field shows.
    setError(new ApiError(err.code, other.join('; ')));
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    setDone('');
    const built = mode === 'create' ? ruleCreatePayload(rule) : versionAddPayload(version);
    if (!built.ok) {
      setFieldErrors({ [built.field]: built.message });
      setError(null);
      return;
    }
    clearErrors();
    setBusy(true);
    try {
      if ('rule' in built.payload) {
        const r = await api.billingRuleCreate(built.payload);
        const v = r.versions[r.versions.length - 1]?.version_no ?? 1;
        setDone(t('ruleEditor.created', { code: r.rule_code }));
        setRule(emptyRule());
        onSaved(r.rule_code, v);
      } else {
        const v = await api.billingRuleVersionAdd(built.payload);
        setDone(t('ruleEditor.added', { code: v.rule_code, v: v.version_no }));
        setVersion(emptyVersion());
        onSaved(v.rule_code, v.version_no);
      }
    } catch (err) {
      showError(err);
    } finally {
      setBusy(false);
    }
  }

  const errId = (k: RuleFormField) => `${id}-${k}-err`;
  const invalid = (k: RuleFormField) => (fieldErrors[k] ? { 'aria-invalid': true as const, 'aria-describedby': errId(k) } : {});
  const field = (k: RuleFormField, control: ReactNode, extra = '') => (
    <label className={`field ${extra}`}>
      <span>{t(LABEL[k])}</span>
      {control}
      {fieldErrors[k] && (
        <span className="field-error" id={errId(k)} data-testid={`rule-editor-error-${k}`}>
          {fieldErrors[k]}
        </span>
      )}
    </label>
  );
  const times = (form: RuleForm | VersionForm, set: (k: 'effective_from' | 'effective_to', v: string) => void) => (
    <div className="field-grid">
      {field('effective_from', <input type="datetime-local" value={form.effective_from} onChange={(e) => set('effective_from', e.target.value)} data-testid="rule-editor-from" {...invalid('effective_from')} />)}
      {field('effective_to', <input type="datetime-local" value={form.effective_to} onChange={(e) => set('effective_to', e.target.value)} data-testid="rule-editor-to" {...invalid('effective_to')} />)}
    </div>
  );
  const payload = (value: string, set: (v: string) => void) =>
    field(
      'payload',
      <textarea rows={8} spellCheck={false} className="mono" value={value} onChange={(e) => set(e.target.value)} data-testid="rule-editor-payload" {...invalid('payload')} />,
      'full',
    );

  return (
    <section className="card billing-rule-editor" aria-labelledby={`${id}-h`} data-testid="rule-editor">
      <div className="card-head">
        <h3 id={`${id}-h`}>{t('ruleEditor.title')}</h3>
        <span className="muted small">{t('ruleEditor.note')}</span>
      </div>
      <fieldset className="sim-by">
        <legend className="sr-only">{t('ruleEditor.mode')}</legend>
        <label className="check">
          <input type="radio" name={`${id}-mode`} checked={mode === 'create'} onChange={() => switchMode('create')} data-testid="rule-editor-mode-create" /> {t('ruleEditor.newRule')}
        </label>
        <label className="check">
          <input type="radio" name={`${id}-mode`} checked={mode === 'version'} onChange={() => switchMode('version')} disabled={all.length === 0} data-testid="rule-editor-mode-version" /> {t('ruleEditor.addVersion')}
        </label>
      </fieldset>
      <form onSubmit={(e) => void submit(e)} noValidate data-testid={`rule-editor-form-${mode}`} aria-describedby={error ? `${id}-error` : undefined}>
        {mode === 'create' ? (
          <>
            <div className="field-grid">
              {field('rule_code', <input value={rule.rule_code} onChange={(e) => setR('rule_code', e.target.value)} placeholder="SEA-STORAGE" data-testid="rule-editor-code" {...invalid('rule_code')} />)}
              {field('name', <input value={rule.name} onChange={(e) => setR('name', e.target.value)} data-testid="rule-editor-name" {...invalid('name')} />)}
              {field('city_code', <input value={rule.city_code} onChange={(e) => setR('city_code', e.target.value)} placeholder="SEA" data-testid="rule-editor-city" {...invalid('city_code')} />)}
              {field('lot_codes', <input value={rule.lot_codes} onChange={(e) => setR('lot_codes', e.target.value)} placeholder="STORAGE, LOT-B" data-testid="rule-editor-lots" {...invalid('lot_codes')} />)}
              {field('time_zone', <input value={rule.time_zone} onChange={(e) => setR('time_zone', e.target.value)} placeholder="America/Los_Angeles" data-testid="rule-editor-zone" {...invalid('time_zone')} />)}
              {field(
                'status',
                <select value={rule.status} onChange={(e) => setR('status', e.target.value as RuleForm['status'])} data-testid="rule-editor-status" {...invalid('status')}>
                  <option value="active">{t('rules.active')}</option>
                  <option value="inactive">{t('rules.inactive')}</option>
                </select>,
              )}
            </div>
            {times(rule, setR)}
            {payload(rule.payload, (v) => setR('payload', v))}
          </>
        ) : (
          <>
            {field(
              'rule_code',
              <select
                value={version.rule_code}
                onChange={(e) => {
                  const code = e.target.value;
                  setVersion(versionFor(all.find((r) => r.rule_code === code), code));
                  clearErrors();
                  setDone('');
                }}
                data-testid="rule-editor-rule"
                {...invalid('rule_code')}
              >
                <option value="">{t('sim.pickRule')}</option>
                {all.map((r) => (
                  <option key={r.rule_code} value={r.rule_code}>
                    {r.rule_code} — {r.name}
                  </option>
                ))}
              </select>,
            )}
            {version.rule_code && (
              <p className="muted small" data-testid="rule-editor-zone-note">
                {t('ruleEditor.timesIn', { tz: all.find((r) => r.rule_code === version.rule_code)?.time_zone ?? 'UTC' })}
              </p>
            )}
            {times(version, setV)}
            {payload(version.payload, (v) => setV('payload', v))}
          </>
        )}
        <div className="form-actions">
          <button type="submit" className="btn primary" disabled={busy} aria-busy={busy} data-testid="rule-editor-save">
            {busy ? t('common.saving') : mode === 'create' ? t('ruleEditor.create') : t('ruleEditor.add')}
          </button>
        </div>
      </form>
      <div id={`${id}-error`}>
        <ErrorMessage error={error} testId="rule-editor-error" />
      </div>
      <p className="muted small" role="status" aria-live="polite" data-testid="rule-editor-done">
        {done}
      </p>
    </section>
  );
}

const RULE_FIELDS: RuleFormField[] = ['rule_code', 'name', 'city_code', 'lot_codes', 'time_zone', 'status', 'effective_from', 'effective_to', 'payload'];
const VERSION_FIELDS: RuleFormField[] = ['rule_code', 'effective_from', 'effective_to', 'payload'];
