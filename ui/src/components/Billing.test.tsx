import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { App } from '../App';
import type { BillingRule, Piece } from '../api';
import { openBillingRule } from '../events';
import { appError, installFakeBackend, type Handlers } from '../test/fakeBackend';
import { allByTestId, byTestId, click, render, typeInto, waitFor, type Rendered } from '../test/render';

const INFO = { name: 'RV Service Desk', version: '9.9.9', data_dir: '/data/desk', schema_version: 1, sessions: 0, artifacts: 0 };

const DAY = { name: 'day', window: '08:00-20:00', type: 'periodic', unit_minutes: 30, unit_price: '2.00', cap: '20.00' };
const NIGHT = { name: 'night', window: '20:00-08:00', type: 'free' };
const RULES: BillingRule[] = [
  {
    rule_code: 'SH-DAYNIGHT-STD',
    name: 'Standard day/night',
    city_code: 'SH',
    lot_codes: ['LOT-A'],
    status: 'active',
    time_zone: 'Asia/Shanghai',
    created_at: '2026-01-01T00:00:00Z',
    versions: [
      { rule_code: 'SH-DAYNIGHT-STD', version_no: 1, effective_from: '2026-01-01T00:00', effective_to: '2026-03-01T00:00', payload: { free_minutes: 0, segments: [DAY, NIGHT] }, created_at: '' },
      {
        rule_code: 'SH-DAYNIGHT-STD',
        version_no: 2,
        effective_from: '2026-03-01T00:00',
        effective_to: null,
        payload: { free_minutes: 0, segments: [{ ...DAY, unit_price: '2.50', cap: '25.00' }, NIGHT] },
        created_at: '',
      },
    ],
  },
  {
    rule_code: 'SH-HOURLY-B',
    name: 'Hourly',
    city_code: 'SH',
    lot_codes: ['LOT-B'],
    status: 'active',
    time_zone: 'Asia/Shanghai',
    created_at: '',
    versions: [{ rule_code: 'SH-HOURLY-B', version_no: 1, effective_from: '2026-01-01T00:00', effective_to: null, payload: { free_minutes: 0, segments: [{ ...DAY, window: '00:00-24:00', unit_minutes: 60, unit_price: '3.00' }] }, created_at: '' }],
  },
];

const PIECE: Piece = {
  segment: 'day',
  segment_index: 0,
  type: 'periodic',
  window: '08:00-20:00',
  occurrence: '2026-03-05',
  start: '2026-03-05T09:00',
  end: '2026-03-05T11:10',
  minutes: 130,
  units: 5,
  lines: [{ from_minute: 0, units: 5, unit_price: '2.50', amount: '12.50' }],
  uncapped_amount: '12.50',
  cap: '25.00',
  cap_applied: false,
  amount: '12.50',
};

const ORDER = {
  order_no: 'ORD-022',
  city_code: 'SH',
  lot_code: 'LOT-A',
  plate_no: '沪A10020',
  entry_time: '2026-03-05T09:00',
  exit_time: '2026-03-05T11:10',
  total_amount: '15.00',
  paid_amount: '0.00',
  arrears_amount: '15.00',
  created_at: '',
};

let view: Rendered | null = null;

beforeEach(() => window.history.replaceState(null, '', '/'));
afterEach(() => {
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
  window.history.replaceState(null, '', '/');
});

async function openBilling(handlers: Handlers = {}) {
  const backend = installFakeBackend({
    app_info: () => INFO,
    session_list: () => ({ sessions: [] }),
    billing_rules: () => ({ rules: RULES }),
    billing_orders: () => ({ orders: [ORDER] }),
    ...handlers,
  });
  view = render(<App />);
  const root = view.container;
  act(() => {
    window.dispatchEvent(new KeyboardEvent('keydown', { key: '3', code: 'Digit3', altKey: true, bubbles: true, cancelable: true }));
  });
  await waitFor(() => allByTestId(root, 'rule-row').length === 2);
  return { backend, root };
}

function submit(el: HTMLElement | null) {
  act(() => {
    el!.closest('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
  });
}

describe('billing workspace', () => {
  it('opens with Alt+3 (#billing) and shows each rule with its versions on the validity timeline', async () => {
    const { root } = await openBilling();
    expect(byTestId(root, 'nav-billing')!.getAttribute('aria-current')).toBe('page');
    expect(window.location.hash).toBe('#billing');
    const row = root.querySelector('[data-rule-code="SH-DAYNIGHT-STD"]')!;
    const bars = allByTestId(row, 'version-bar');
    expect(bars.map((b) => b.textContent)).toEqual(['v1', expect.stringMatching(/^v2/)]);
    click(bars[0]);
    const detail = byTestId(root, 'version-detail')!;
    expect(detail.dataset.version).toBe('1');
    expect(byTestId(detail, 'payload-summary')!.textContent).toContain('day 08:00–20:00: 2.00 per 30 min, at most 20.00 per day');
    expect(bars[0].getAttribute('aria-pressed')).toBe('true');
  });

  it('a rule citation chip (openBillingRule) selects that rule and version', async () => {
    const { root } = await openBilling();
    act(() => openBillingRule({ rule_code: 'SH-HOURLY-B', version_no: 1 }));
    await waitFor(() => byTestId(root, 'version-detail')?.dataset.ruleCode === 'SH-HOURLY-B');
    expect(root.querySelector('[data-testid="rule-row"][data-rule-code="SH-HOURLY-B"]')!.className).toContain('is-selected');
  });

  it('Verify on an order row runs billing_verify and shows the verdict and the breakdown', async () => {
    const { root, backend } = await openBilling({
      billing_verify: (p) => ({
        ...ORDER,
        order_no: p.order_no,
        result: 'mismatch',
        action: 'manual_review',
        order_total: '15.00',
        simulated_total: '12.50',
        difference: '2.50',
        rule_code: 'SH-DAYNIGHT-STD',
        version_no: 2,
        time_zone: 'Asia/Shanghai',
        pieces: [PIECE],
      }),
    });
    await waitFor(() => allByTestId(root, 'order-row').length === 1);
    click(byTestId(byTestId(root, 'order-row')!, 'order-verify'));
    const result = await waitFor(() => byTestId(root, 'verify-result'));
    expect(backend.callsOf('billing_verify')).toEqual([{ order_no: 'ORD-022' }]);
    expect(byTestId(result, 'verify-verdict')!.textContent).toBe('Mismatch');
    expect(byTestId(result, 'verify-action')!.textContent).toContain('Manual review');
    expect(byTestId(result, 'verify-difference')!.textContent).toBe('+2.50');
    expect(allByTestId(result, 'piece-bar')).toHaveLength(1);
    expect(byTestId(result, 'piece-bar')!.style.left).toBe('37.5%');
  });

  it('simulator: sends only what the form names, shows the backend error next to the form', async () => {
    const { root, backend } = await openBilling({
      billing_simulate: () => {
        throw appError('exit_before_entry', 'exit 2026-02-09T10:00 is before entry 2026-02-10T10:00');
      },
    });
    const sim = byTestId(root, 'billing-simulator')!;
    submit(byTestId(sim, 'sim-run'));
    expect(byTestId(sim, 'sim-field-error')!.textContent).toBe('Pick a rule.');
    expect(backend.callsOf('billing_simulate')).toHaveLength(0);
    const select = byTestId(sim, 'sim-rule') as HTMLSelectElement;
    act(() => {
      select.value = 'SH-DAYNIGHT-STD';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    typeInto(byTestId(sim, 'sim-entry')!, '2026-02-10T10:00');
    typeInto(byTestId(sim, 'sim-exit')!, '2026-02-09T10:00');
    submit(byTestId(sim, 'sim-run'));
    const err = await waitFor(() => byTestId(sim, 'sim-error'));
    expect(err.dataset.code).toBe('exit_before_entry');
    expect(backend.callsOf('billing_simulate')).toEqual([{ rule_code: 'SH-DAYNIGHT-STD', entry: '2026-02-10T10:00', exit: '2026-02-09T10:00' }]);
  });
  it('rule editor: creates a rule, shows each wrong field the backend names beside that field, then saves it and lists it', async () => {
    let attempt = 0;
    const { root, backend } = await openBilling({
      billing_rule_create: (p) => {
        attempt += 1;
        if (attempt === 1) {
          throw appError(
            'invalid_input',
            'city_code: "S E A" is not a code (letters, digits, - and _, at most 32); versions[0].payload: invalid payload: segments[0].unit_price: invalid amount "2,50": expected digits before the decimal point, like "6.00"',
          );
        }
        const rule = p.rule as { rule_code: string };
        return { ...RULES[1], rule_code: rule.rule_code, versions: [{ ...RULES[1].versions[0], rule_code: rule.rule_code }] };
      },
    });
    const editor = byTestId(root, 'rule-editor')!;
    typeInto(byTestId(editor, 'rule-editor-code')!, 'SEA-STORAGE');
    typeInto(byTestId(editor, 'rule-editor-name')!, 'Storage lot');
    typeInto(byTestId(editor, 'rule-editor-city')!, 'S E A');
    typeInto(byTestId(editor, 'rule-editor-lots')!, 'STORAGE, B');
    typeInto(byTestId(editor, 'rule-editor-zone')!, 'America/Los_Angeles');
    typeInto(byTestId(editor, 'rule-editor-from')!, '2026-01-01T00:00');
    const tariff = { free_minutes: 0, segments: [{ name: 'day', window: '00:00-24:00', type: 'periodic', unit_minutes: 1440, unit_price: '2,50' }] };
    typeInto(byTestId(editor, 'rule-editor-payload')!, JSON.stringify(tariff));
    submit(byTestId(editor, 'rule-editor-save'));
    const cityErr = await waitFor(() => byTestId(editor, 'rule-editor-error-city_code'));
    expect(backend.callsOf('billing_rule_create')).toEqual([
      {
        rule: {
          rule_code: 'SEA-STORAGE',
          name: 'Storage lot',
          city_code: 'S E A',
          lot_codes: ['STORAGE', 'B'],
          status: 'active',
          time_zone: 'America/Los_Angeles',
          versions: [{ version_no: 1, effective_from: '2026-01-01T00:00', payload: tariff }],
        },
      },
    ]);
    expect(cityErr.textContent).toBe('"S E A" is not a code (letters, digits, - and _, at most 32)');
    const city = byTestId(editor, 'rule-editor-city')!;
    expect(city.getAttribute('aria-invalid')).toBe('true');
    expect(city.getAttribute('aria-describedby')).toBe(cityErr.id);
    expect(byTestId(editor, 'rule-editor-error-payload')!.textContent).toBe('invalid payload: segments[0].unit_price: invalid amount "2,50": expected digits before the decimal point, like "6.00"');
    expect(byTestId(editor, 'rule-editor-error-rule_code')).toBeNull();
    expect(byTestId(editor, 'rule-editor-code')!.getAttribute('aria-invalid')).toBeNull();
    expect(byTestId(editor, 'rule-editor-error')!.dataset.code).toBe('invalid_input');
    // Nothing typed is lost, and fixing a field clears its message.
    expect((byTestId(editor, 'rule-editor-code') as HTMLInputElement).value).toBe('SEA-STORAGE');
    typeInto(city, 'SEA');
    expect(byTestId(editor, 'rule-editor-error-city_code')).toBeNull();
    expect(byTestId(editor, 'rule-editor-error-payload')).not.toBeNull();

    typeInto(byTestId(editor, 'rule-editor-payload')!, JSON.stringify({ ...tariff, segments: [{ ...tariff.segments[0], unit_price: '2.50' }] }));
    submit(byTestId(editor, 'rule-editor-save'));
    await waitFor(() => byTestId(editor, 'rule-editor-done')!.textContent === 'Created SEA-STORAGE with version 1.');
    expect(byTestId(editor, 'rule-editor-error-payload')).toBeNull();
    expect(byTestId(editor, 'rule-editor-error')).toBeNull();
    expect((byTestId(editor, 'rule-editor-code') as HTMLInputElement).value).toBe('');
    await waitFor(() => backend.callsOf('billing_rules').length === 2);
  });

  it('rule editor: adds a version starting from the newest tariff; an overlap shows beside its field; a tariff that is not JSON is not sent', async () => {
    let refuse = true;
    const { root, backend } = await openBilling({
      billing_rule_version_add: (p) => {
        if (refuse) {
          throw appError(
            'conflict',
            'effective_from: version 3 (from 2026-02-01T00:00 (open-ended)) clashes with version 2 (from 2026-03-01T00:00 (open-ended)): versions of a rule may not overlap; the stored version is open-ended and versions are never edited',
          );
        }
        return { ...RULES[0].versions[1], version_no: 3, effective_from: p.effective_from, effective_to: p.effective_to ?? null };
      },
    });
    const editor = byTestId(root, 'rule-editor')!;
    click(byTestId(editor, 'rule-editor-mode-version'));
    typeInto(byTestId(editor, 'rule-editor-rule')!, 'SH-DAYNIGHT-STD');
    const payload = byTestId(editor, 'rule-editor-payload') as HTMLTextAreaElement;
    expect(JSON.parse(payload.value)).toEqual(RULES[0].versions[1].payload);
    expect(byTestId(editor, 'rule-editor-zone-note')!.textContent).toContain('Asia/Shanghai');

    typeInto(byTestId(editor, 'rule-editor-from')!, '2026-02-01T00:00');
    typeInto(payload, '{"segments": [');
    submit(byTestId(editor, 'rule-editor-save'));
    expect(byTestId(editor, 'rule-editor-error-payload')!.textContent).toMatch(/^Not valid JSON: /);
    expect(backend.callsOf('billing_rule_version_add')).toHaveLength(0);

    typeInto(payload, JSON.stringify(RULES[0].versions[1].payload));
    submit(byTestId(editor, 'rule-editor-save'));
    const fromErr = await waitFor(() => byTestId(editor, 'rule-editor-error-effective_from'));
    expect(fromErr.textContent).toBe(
      'version 3 (from 2026-02-01T00:00 (open-ended)) clashes with version 2 (from 2026-03-01T00:00 (open-ended)): versions of a rule may not overlap; the stored version is open-ended and versions are never edited',
    );
    expect(byTestId(editor, 'rule-editor-error-payload')).toBeNull();
    expect(byTestId(editor, 'rule-editor-error')!.dataset.code).toBe('conflict');
    expect(backend.callsOf('billing_rule_version_add')).toEqual([
      { rule_code: 'SH-DAYNIGHT-STD', effective_from: '2026-02-01T00:00', payload: RULES[0].versions[1].payload },
    ]);

    refuse = false;
    submit(byTestId(editor, 'rule-editor-save'));
    await waitFor(() => byTestId(editor, 'rule-editor-done')!.textContent === 'Added version 3 to SH-DAYNIGHT-STD.');
    expect(byTestId(editor, 'rule-editor-error-effective_from')).toBeNull();
  });
});
