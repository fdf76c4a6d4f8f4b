import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RepairOrder, RoLineView } from '../api';
import { setLocale } from '../i18n';
import { appError, installFakeBackend } from '../test/fakeBackend';
import { allByTestId, byTestId, click, render, typeInto, waitFor, type Rendered } from '../test/render';
import { ComplaintLines } from './ComplaintLines';

let view: Rendered | null = null;

afterEach(() => {
  view?.unmount();
  view = null;
  vi.unstubAllGlobals();
  setLocale('en');
});

const zero = { labor: '0.00', parts: '0.00', taxable: '0.00', tax: '0.00', total: '0.00' };

function line(over: Partial<RoLineView> = {}): RoLineView {
  return {
    id: 'l1',
    line_no: 1,
    complaint: 'Fridge not cooling',
    pay_type: 'customer',
    warranty_payer: null,
    warranty_maker: null,
    engine_complaint: null,
    labor_rate: '145.00',
    labor: [],
    parts: [],
    totals: zero,
    authorization: { status: 'pending', by: null, method: null, at: null, total: null },
    isolated: false,
    ...over,
  };
}

function order(lines: RoLineView[], totals = zero): RepairOrder {
  return {
    session_id: 's1',
    ro_number: 'RO-000007',
    settings: {
      labor_rates: { customer: '145.00', warranty: '120.00', internal: '80.00', service_contract: '130.00' },
      tax_rate: '8.25',
      labor_taxable: false,
    },
    lines,
    totals,
    diagnoses: [
      {
        key: 'fridge:not_cooling',
        system: 'fridge',
        title: 'Refrigerator not cooling',
        cause: 'Thermocouple open',
        isolated: true,
        labor: [{ description: 'Replace thermocouple', hours: '0.8' }],
        parts: [{ part_no: null, description: 'Thermocouple', qty: '1', unit_price: '' }],
      },
    ],
  };
}

describe('complaint lines card', () => {
  it('shows the amounts the backend priced, fills a line from the diagnosis, and keeps the form on an error', async () => {
    const priced = line({
      pay_type: 'warranty',
      warranty_payer: 'coach',
      labor: [{ description: 'Replace thermocouple', hours: '0.8', amount: '96.00' }],
      parts: [{ part_no: 'TC-1', description: 'Thermocouple', qty: '1', unit_price: '24.99', amount: '24.99' }],
      totals: { labor: '96.00', parts: '24.99', taxable: '24.99', tax: '2.06', total: '123.05' },
    });
    let saves = 0;
    const backend = installFakeBackend({
      ro_show: () => order([line()]),
      ro_line_save: (p) => {
        saves += 1;
        if (p.line.parts?.some((x) => x.unit_price === '')) throw appError('invalid_input', 'unit_price: part line 1: empty');
        return order([priced], priced.totals);
      },
    });
    view = render(<ComplaintLines sessionId="s1" refreshKey="a" />);
    const root = view.container;
    await waitFor(() => byTestId(root, 'ro-lines'));
    expect(byTestId(root, 'ro-line-pay')!.textContent).toBe('Customer pay');
    expect(byTestId(root, 'ro-tax-note')!.textContent).toBe('Tax 8.25 % on parts; labor is not taxed.');

    click(byTestId(root, 'edit-line'));
    typeInto(byTestId(root, 'line-pay-type')!, 'warranty');
    typeInto(byTestId(root, 'line-payer')!, 'coach');
    typeInto(byTestId(root, 'line-diagnosis')!, 'fridge:not_cooling');
    click(byTestId(root, 'line-use-diagnosis'));
    expect((byTestId(root, 'labor-hours') as HTMLInputElement).value).toBe('0.8');
    expect((byTestId(root, 'part-description') as HTMLInputElement).value).toBe('Thermocouple');

    // The catalog knows no price: the backend refuses, the form stays.
    click(byTestId(root, 'save-line'));
    const err = await waitFor(() => byTestId(root, 'line-error'));
    expect(err.textContent).toContain('unit_price: part line 1');
    expect(byTestId(root, 'line-form')).not.toBeNull();

    typeInto(byTestId(root, 'part-price')!, '24.99');
    typeInto(byTestId(root, 'part-no')!, 'TC-1');
    click(byTestId(root, 'save-line'));
    await waitFor(() => (byTestId(root, 'line-form') ? null : true));
    expect(saves).toBe(2);
    const sent = backend.callsOf('ro_line_save')[1].line;
    expect(sent).toMatchObject({ line_id: 'l1', pay_type: 'warranty', warranty_payer: 'coach', engine_complaint: 'fridge:not_cooling' });
    expect(sent.parts).toEqual([{ part_no: 'TC-1', description: 'Thermocouple', qty: '1', unit_price: '24.99' }]);
    expect(byTestId(root, 'ro-line-pay')!.textContent).toBe('Warranty · Coach maker');
    expect(allByTestId(root, 'ro-labor-amount').map((e) => e.textContent)).toEqual(['96.00']);
    expect(byTestId(root, 'ro-line-totals-total')!.textContent).toBe('123.05');
    expect(byTestId(root, 'ro-totals-total')!.textContent).toBe('123.05');
  });

  it('on a finalized RO, every change is disabled and says why', async () => {
    const priced = line({ labor: [{ description: 'Replace thermocouple', hours: '0.8', amount: '116.00' }], isolated: true });
    installFakeBackend({ ro_show: () => order([priced]) });
    view = render(<ComplaintLines sessionId="s1" refreshKey="a" readOnly />);
    const root = view.container;
    await waitFor(() => byTestId(root, 'ro-lines'));
    const note = byTestId(root, 'lines-read-only')!;
    expect(note.textContent).toBe('Finalized: the repair order is read-only until it is reopened (Progress tab, Reopen…).');
    for (const id of ['add-line', 'edit-line', 'answer-estimate']) {
      const b = byTestId(root, id) as HTMLButtonElement;
      expect(b.disabled, id).toBe(true);
      expect(b.getAttribute('aria-describedby'), id).toBe(note.id);
    }
    click(byTestId(root, 'edit-line'));
    expect(byTestId(root, 'line-form')).toBeNull();
  });

  it('offers an approval only once the line is isolated; a decline at any time', async () => {
    const estimate = { labor: [{ description: 'Diagnose', hours: '0.5', amount: '72.50' }] };
    const backend = installFakeBackend({
      ro_show: () => order([line(estimate), line({ ...estimate, id: 'l2', line_no: 2, isolated: true })]),
      ro_line_authorize: () => order([line({ ...estimate, authorization: { status: 'declined', by: 'Jane', method: 'phone', at: '2026-11-27T15:04:00Z', total: '72.50' } })]),
    });
    view = render(<ComplaintLines sessionId="s1" refreshKey="a" />);
    const root = view.container;
    await waitFor(() => byTestId(root, 'ro-lines'));
    const [first, second] = allByTestId(root, 'ro-line');
    expect(byTestId(first, 'approve-blocked')!.textContent).toContain('Approval waits for this line’s diagnosis to isolate a cause');
    expect(byTestId(second, 'approve-blocked')).toBeNull();

    click(byTestId(second, 'answer-estimate'));
    const open = byTestId(root, 'answer-decision') as HTMLSelectElement;
    expect(open.value).toBe('approved');
    click(allByTestId(root, 'answer-form')[0].querySelector('button[type="button"]'));

    click(byTestId(first, 'answer-estimate'));
    const decision = byTestId(root, 'answer-decision') as HTMLSelectElement;
    expect(decision.value).toBe('declined');
    expect((decision.querySelector('option[value="approved"]') as HTMLOptionElement).disabled).toBe(true);
    expect(decision.getAttribute('aria-describedby')).toBe(byTestId(first, 'approve-blocked')!.id);
    typeInto(byTestId(root, 'answer-by')!, 'Jane');
    typeInto(byTestId(root, 'answer-method')!, 'phone');
    click(byTestId(root, 'save-answer'));
    await waitFor(() => (byTestId(root, 'answer-form') ? null : true));
    expect(backend.callsOf('ro_line_authorize')[0].authorization).toMatchObject({ line_id: 'l1', decision: 'declined', by: 'Jane', method: 'phone' });
  });
});
