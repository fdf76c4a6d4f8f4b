import { describe, expect, it } from 'vitest';
import type { Piece } from './api';
import {
  arrearsPayload,
  billingFileKind,
  dayLabel,
  demoSummary,
  formatCents,
  formatMinutes,
  formatMoney,
  formatSigned,
  formatSkipped,
  formatStay,
  importSummary,
  normalizeLocal,
  ordersFilter,
  parseMoney,
  parseRuleCitation,
  ruleCreatePayload,
  ruleFieldErrors,
  paymentState,
  payloadSummary,
  pieceLinesText,
  pieceTimeline,
  segmentSummary,
  simulatePayload,
  sumMoney,
  validityLayout,
  versionAt,
  versionState,
  wallNow,
  windowBands,
  type SimulatorForm,
} from './billing';

function piece(over: Partial<Piece>): Piece {
  return {
    segment: 'day',
    segment_index: 0,
    type: 'periodic',
    window: '08:00-20:00',
    occurrence: '2026-02-10',
    start: '2026-02-10T10:00',
    end: '2026-02-10T20:00',
    minutes: 600,
    units: 20,
    lines: [{ from_minute: 0, units: 20, unit_price: '2.00', amount: '40.00' }],
    uncapped_amount: '40.00',
    cap: '20.00',
    cap_applied: true,
    amount: '20.00',
    ...over,
  };
}

/** The worked example: SH-DAYNIGHT-STD v1, 2026-02-10 10:00 → 2026-02-13 09:10 = 66.00. */
const STAY: Piece[] = [
  piece({}),
  piece({ segment: 'night', segment_index: 1, type: 'free', window: '20:00-08:00', start: '2026-02-10T20:00', end: '2026-02-11T08:00', minutes: 720, units: 0, lines: [], uncapped_amount: '0.00', cap: undefined, cap_applied: false, amount: '0.00' }),
  piece({ occurrence: '2026-02-11', start: '2026-02-11T08:00', end: '2026-02-11T20:00', minutes: 720, units: 24 }),
  piece({ segment: 'night', segment_index: 1, type: 'free', window: '20:00-08:00', occurrence: '2026-02-11', start: '2026-02-11T20:00', end: '2026-02-12T08:00', minutes: 720, units: 0, lines: [], uncapped_amount: '0.00', cap: undefined, cap_applied: false, amount: '0.00' }),
  piece({ occurrence: '2026-02-12', start: '2026-02-12T08:00', end: '2026-02-12T20:00', minutes: 720, units: 24 }),
  piece({ segment: 'night', segment_index: 1, type: 'free', window: '20:00-08:00', occurrence: '2026-02-12', start: '2026-02-12T20:00', end: '2026-02-13T08:00', minutes: 720, units: 0, lines: [], uncapped_amount: '0.00', cap: undefined, cap_applied: false, amount: '0.00' }),
  piece({ occurrence: '2026-02-13', start: '2026-02-13T08:00', end: '2026-02-13T09:10', minutes: 70, units: 3, lines: [{ from_minute: 0, units: 3, unit_price: '2.00', amount: '6.00' }], uncapped_amount: '6.00', cap_applied: false, amount: '6.00' }),
];

describe('money', () => {
  it('parses decimal strings into integer cents without floats', () => {
    expect(parseMoney('6.00')).toBe(600);
    expect(parseMoney('12.5')).toBe(1250);
    expect(parseMoney('3')).toBe(300);
    expect(parseMoney('-2.50')).toBe(-250);
    expect(parseMoney('0.07')).toBe(7);
    expect(parseMoney(' 19.00 ')).toBe(1900);
    expect(parseMoney('-0.00')).toBe(0);
    expect(parseMoney('1.005')).toBeNull();
    expect(parseMoney('abc')).toBeNull();
    expect(parseMoney('')).toBeNull();
    expect(parseMoney(null)).toBeNull();
    // 0.1 + 0.2 would not be 0.3 in floats; in cents it is exact.
    expect(formatCents(sumMoney(['0.10', '0.20']))).toBe('0.30');
  });

  it('formats cents and strings with two places and a sign where asked', () => {
    expect(formatCents(6600)).toBe('66.00');
    expect(formatCents(5)).toBe('0.05');
    expect(formatCents(-250)).toBe('-2.50');
    expect(formatMoney('6')).toBe('6.00');
    expect(formatMoney('12.5')).toBe('12.50');
    expect(formatMoney(undefined)).toBe('—');
    expect(formatMoney('n/a')).toBe('n/a');
    expect(formatSigned('2.50')).toBe('+2.50');
    expect(formatSigned('-1.00')).toBe('-1.00');
    expect(formatSigned('0.00')).toBe('0.00');
  });

  it('sums pieces to the total of the worked example', () => {
    expect(formatCents(sumMoney(STAY.map((p) => p.amount)))).toBe('66.00');
  });

  it('tells paid, partly paid and unpaid orders apart', () => {
    expect(paymentState({ total_amount: '9.00', paid_amount: '5.00' })).toBe('partly');
    expect(paymentState({ total_amount: '9.00', paid_amount: '0.00' })).toBe('unpaid');
    expect(paymentState({ total_amount: '4.00', paid_amount: '4.00' })).toBe('paid');
  });
});

describe('times', () => {
  it('formats minutes, stays and days', () => {
    expect(formatMinutes(130)).toBe('2 h 10 min');
    expect(formatMinutes(45)).toBe('45 min');
    expect(formatMinutes(0)).toBe('0 min');
    expect(formatMinutes(2880)).toBe('2 d');
    expect(formatMinutes(1440 + 61)).toBe('1 d 1 h 1 min');
    expect(formatStay('2026-02-12T09:00', '2026-02-12T12:00')).toBe('2026-02-12 09:00–12:00');
    expect(formatStay('2026-02-12T20:00', '2026-02-13T08:00')).toBe('2026-02-12 20:00 → 2026-02-13 08:00');
    expect(dayLabel('2026-02-10')).toBe('Tue 2026-02-10');
    expect(dayLabel('2026-03-01')).toBe('Sun 2026-03-01');
  });

  it('reads the wall clock of a time zone (UTC for an unknown one)', () => {
    const at = new Date('2026-03-01T00:30:00Z');
    expect(wallNow('Asia/Shanghai', at)).toBe('2026-03-01T08:30');
    expect(wallNow('America/New_York', at)).toBe('2026-02-28T19:30');
    expect(wallNow('UTC', at)).toBe('2026-03-01T00:30');
    expect(wallNow('Not/AZone', at)).toBe('2026-03-01T00:30');
  });

  it('splits a window that crosses midnight into two bands of the day', () => {
    expect(windowBands('08:00-20:00')).toEqual([[480, 1200]]);
    expect(windowBands('20:00-08:00')).toEqual([
      [0, 480],
      [1200, 1440],
    ]);
    expect(windowBands('00:00-24:00')).toEqual([[0, 1440]]);
    expect(windowBands('22:00-00:00')).toEqual([[1320, 1440]]);
    expect(windowBands('nonsense')).toEqual([]);
  });
});

describe('piece timeline', () => {
  it('draws one row per day from entry to exit, a bar per piece at its time of day', () => {
    const t = pieceTimeline(STAY, '2026-02-10T10:00', '2026-02-13T09:10');
    expect(t.rows.map((r) => r.date)).toEqual(['2026-02-10', '2026-02-11', '2026-02-12', '2026-02-13']);
    const first = t.rows[0].bars;
    // 10:00–20:00 day piece, then the night's part to midnight.
    expect(first.map((b) => [b.piece, b.fromMinute, b.toMinute])).toEqual([
      [0, 600, 1200],
      [1, 1200, 1440],
    ]);
    expect(first[0].left).toBeCloseTo((600 / 1440) * 100, 2);
    expect(first[0].width).toBeCloseTo((600 / 1440) * 100, 2);
    expect(first[1].continuesAfter).toBe(true);
    // The last day: the night's morning part (longest part, so it carries the label) and 08:00–09:10.
    const last = t.rows[3].bars;
    expect(last.map((b) => [b.piece, b.fromMinute, b.toMinute, b.labelled])).toEqual([
      [5, 0, 480, true],
      [6, 480, 550, true],
    ]);
    expect(last[0].continuesBefore).toBe(true);
    expect(t.entry).toEqual({ date: '2026-02-10', left: expect.closeTo(41.667, 2) });
    expect(t.exit?.date).toBe('2026-02-13');
    expect(t.hiddenDays).toBe(0);
  });

  it('labels a piece split at midnight once, on its longer part', () => {
    const t = pieceTimeline(STAY);
    const parts = t.rows.flatMap((r) => r.bars).filter((b) => b.piece === 1);
    expect(parts).toHaveLength(2);
    expect(parts.map((b) => b.labelled)).toEqual([false, true]); // 4 h before midnight, 8 h after
  });

  it('builds the legend and the window bands from the segments that priced the stay', () => {
    const t = pieceTimeline(STAY);
    expect(t.legend.map((l) => `${l.segmentIndex}:${l.segment}:${l.window}`)).toEqual(['0:day:08:00-20:00', '1:night:20:00-08:00']);
    expect(t.bands).toHaveLength(3);
    const night = t.bands.filter((b) => b.segment === 'night');
    expect(night.map((b) => [b.left, b.width])).toEqual([
      [0, expect.closeTo(33.333, 2)],
      [expect.closeTo(83.333, 2), expect.closeTo(16.667, 2)],
    ]);
  });

  it('ends a stay that leaves at midnight on the day before, and keeps empty days as rows', () => {
    const p = piece({ start: '2026-02-10T20:00', end: '2026-02-11T00:00', window: '20:00-24:00', minutes: 240 });
    const t = pieceTimeline([p], '2026-02-10T20:00', '2026-02-11T00:00');
    expect(t.rows.map((r) => r.date)).toEqual(['2026-02-10']);
    expect(t.rows[0].bars[0].toMinute).toBe(1440);
    expect(t.exit).toEqual({ date: '2026-02-10', left: 100 });
    // A gap day with no window (nothing charged) is still a row.
    const gap = pieceTimeline([piece({ start: '2026-02-10T08:00', end: '2026-02-10T09:00' }), piece({ start: '2026-02-12T08:00', end: '2026-02-12T09:00' })]);
    expect(gap.rows.map((r) => [r.date, r.bars.length])).toEqual([
      ['2026-02-10', 1],
      ['2026-02-11', 0],
      ['2026-02-12', 1],
    ]);
  });

  it('draws at most maxDays rows and says how many are left out', () => {
    const t = pieceTimeline([], '2026-01-01T00:00', '2026-12-31T12:00', 10);
    expect(t.rows).toHaveLength(10);
    expect(t.hiddenDays).toBe(365 - 10);
  });

  it('describes the pricing lines of a piece', () => {
    expect(pieceLinesText(STAY[0])).toBe('20 × 2.00 = 40.00');
    expect(pieceLinesText(STAY[1])).toBe('free');
    expect(
      pieceLinesText(
        piece({
          lines: [
            { from_minute: 0, units: 4, unit_price: '2.00', amount: '8.00' },
            { from_minute: 120, units: 1, unit_price: '3.00', amount: '3.00' },
          ],
        }),
      ),
    ).toBe('4 × 2.00 = 8.00 + 1 × 3.00 = 3.00');
  });
});

describe('validity timeline', () => {
  const versions = [
    { version_no: 1, effective_from: '2026-01-01T00:00', effective_to: '2026-03-01T00:00' },
    { version_no: 2, effective_from: '2026-03-01T00:00', effective_to: null },
  ];

  it('places versions on one axis; v1 ends where v2 starts; an open version runs on past now', () => {
    const l = validityLayout(versions, '2026-04-01T12:00');
    const [v1, v2] = l.bars;
    expect(v1.left).toBe(0);
    expect(v1.left + v1.width).toBeCloseTo(v2.left, 3);
    expect(v2.left + v2.width).toBeCloseTo(100, 3);
    expect(v2.open).toBe(true);
    expect(v1.open).toBe(false);
    expect([v1.state, v2.state]).toEqual(['past', 'current']);
    expect(l.now).not.toBeNull();
    expect(l.now!).toBeGreaterThan(v2.left);
    expect(l.now!).toBeLessThan(100);
    expect(l.ticks[0]).toEqual({ left: 0, label: '2026-01' });
    expect(l.ticks.map((t) => t.label)).toContain('2026-03');
  });

  it('knows the version in force: from inclusive, to exclusive; future and past', () => {
    expect(versionState(versions[0], '2026-02-28T23:59')).toBe('current');
    expect(versionState(versions[0], '2026-03-01T00:00')).toBe('past');
    expect(versionState(versions[1], '2026-03-01T00:00')).toBe('current');
    expect(versionState(versions[1], '2025-12-31T23:59')).toBe('future');
    expect(versionAt(versions, '2026-02-10T10:00')?.version_no).toBe(1);
    expect(versionAt(versions, '2027-01-01T00:00')?.version_no).toBe(2);
    expect(versionAt(versions, '2025-01-01T00:00')).toBeNull();
  });

  it('thins month ticks on a long axis and copes with no versions', () => {
    const l = validityLayout([{ version_no: 1, effective_from: '2020-01-01T00:00', effective_to: null }], '2026-01-01T00:00');
    expect(l.ticks.length).toBeLessThanOrEqual(9);
    expect(validityLayout([], '2026-01-01T00:00').bars).toEqual([]);
  });

  it('keeps a tiny version visible', () => {
    const l = validityLayout(
      [
        { version_no: 1, effective_from: '2026-01-01T00:00', effective_to: '2026-01-01T01:00' },
        { version_no: 2, effective_from: '2026-01-01T01:00', effective_to: '2027-01-01T00:00' },
      ],
      '2026-06-01T00:00',
    );
    expect(l.bars[0].width).toBeGreaterThanOrEqual(0.5);
  });
});

describe('payload in words', () => {
  it('summarizes periodic, free and tiered segments with caps and the grace period', () => {
    expect(segmentSummary({ name: 'day', window: '08:00-20:00', type: 'periodic', unit_minutes: 30, unit_price: '2.00', cap: '20.00' })).toBe(
      'day 08:00–20:00: 2.00 per 30 min, at most 20.00 per day',
    );
    expect(segmentSummary({ name: 'night', window: '20:00-08:00', type: 'free' })).toBe('night 20:00–08:00: free');
    expect(segmentSummary({ name: 'night', window: '20:00-08:00', type: 'periodic', unit_minutes: 60, unit_price: '1', cap: '5.00' })).toBe(
      'night 20:00–08:00: 1.00 per 60 min, at most 5.00 per night',
    );
    expect(
      segmentSummary({
        name: 'day',
        window: '08:00-20:00',
        type: 'tiered',
        unit_minutes: 30,
        tiers: [
          { up_to_minutes: 120, unit_price: '2.00' },
          { up_to_minutes: null, unit_price: '3.00' },
        ],
        cap: '30.00',
      }),
    ).toBe('day 08:00–20:00: 2.00 per 30 min for the first 120 min, then 3.00 per 30 min, at most 30.00 per day');
    expect(payloadSummary({ free_minutes: 30, segments: [{ name: 'all-day', window: '00:00-24:00', type: 'periodic', unit_minutes: 30, unit_price: '2.00' }] })).toEqual([
      'First 30 min free: a stay of at most 30 min costs 0.00; a longer one is charged from entry.',
      'all-day 00:00–24:00: 2.00 per 30 min',
    ]);
    expect(payloadSummary({ free_minutes: 0, segments: [{ name: 'day', window: '08:00-20:00', type: 'free' }] })).toEqual([
      'No grace period.',
      'day 08:00–20:00: free',
      'Time outside these windows (12 h a day) is not charged.',
    ]);
  });
});

describe('forms → payloads', () => {
  const form = (over: Partial<SimulatorForm>): SimulatorForm => ({ by: 'rule', rule_code: '', city_code: '', lot_code: '', entry: '', exit: '', ...over });

  it('maps a rule, or a city and lot, with entry and exit at minute precision', () => {
    expect(simulatePayload(form({ rule_code: ' SH-DAYNIGHT-STD ', entry: '2026-02-10T10:00', exit: '2026-02-13T09:10:00' }))).toEqual({
      ok: true,
      payload: { rule_code: 'SH-DAYNIGHT-STD', entry: '2026-02-10T10:00', exit: '2026-02-13T09:10' },
    });
    expect(simulatePayload(form({ by: 'scope', city_code: 'sh', lot_code: 'lot-a ', rule_code: 'ignored', entry: '2026-02-10T10:00', exit: '2026-02-10T11:00' }))).toEqual({
      ok: true,
      payload: { city_code: 'SH', lot_code: 'LOT-A', entry: '2026-02-10T10:00', exit: '2026-02-10T11:00' },
    });
  });

  it('names the missing field and sends nothing', () => {
    expect(simulatePayload(form({ entry: '2026-02-10T10:00', exit: '2026-02-10T11:00' }))).toEqual({ ok: false, field: 'rule_code', message: 'Pick a rule.' });
    expect(simulatePayload(form({ by: 'scope', city_code: 'SH' }))).toMatchObject({ ok: false, field: 'lot_code' });
    expect(simulatePayload(form({ rule_code: 'X', exit: '2026-02-10T11:00' }))).toMatchObject({ ok: false, field: 'entry' });
    expect(simulatePayload(form({ rule_code: 'X', entry: '2026-02-10T11:00' }))).toMatchObject({ ok: false, field: 'exit' });
  });

  it('leaves the order of entry and exit (and the 400-day limit) to the backend', () => {
    expect(simulatePayload(form({ rule_code: 'X', entry: '2026-02-10T11:00', exit: '2026-02-09T11:00' })).ok).toBe(true);
  });

  it('normalizes datetime-local values', () => {
    expect(normalizeLocal('2026-02-10T10:00')).toBe('2026-02-10T10:00');
    expect(normalizeLocal('2026-02-10T10:00:00')).toBe('2026-02-10T10:00');
    expect(normalizeLocal('2026-02-10T10:00:00.000')).toBe('2026-02-10T10:00');
    expect(normalizeLocal('2026-02-10T10:00:30')).toBe('2026-02-10T10:00:30'); // the backend says why
  });

  it('maps the arrears and orders filters', () => {
    expect(arrearsPayload(' 沪B20009 ', '')).toEqual({ ok: true, payload: { plate_no: '沪B20009' } });
    expect(arrearsPayload('沪B20009', ' sh')).toEqual({ ok: true, payload: { plate_no: '沪B20009', city_code: 'SH' } });
    expect(arrearsPayload('  ', 'SH')).toMatchObject({ ok: false, field: 'plate_no' });
    expect(ordersFilter('', '')).toEqual({});
    expect(ordersFilter(' 沪A10001', 'hz ')).toEqual({ plate_no: '沪A10001', city_code: 'HZ' });
  });
});

describe('imports and labels', () => {
  it('routes files by extension', () => {
    expect(billingFileKind('rules.JSON')).toBe('rules');
    expect(billingFileKind('orders.jsonl')).toBe('orders');
    expect(billingFileKind('orders.ndjson')).toBe('orders');
    expect(billingFileKind('notes.txt')).toBeNull();
  });

  it('formats the import report', () => {
    expect(formatSkipped({ line: 3, record: 2, key: 'SH-X', field: 'versions[0].payload', message: 'bad window' })).toBe(
      'line 3 (record 2, SH-X): versions[0].payload: bad window',
    );
    expect(formatSkipped({ line: 1, record: 1, key: null, field: null, message: 'not an object' })).toBe('line 1 (record 1): not an object');
    const r = { imported: [{ key: 'A', version_no: 1, line: 2 }], unchanged: [], skipped: [{ line: 9, record: 2, key: null, field: null, message: 'x' }] };
    expect(importSummary(r)).toBe('1 imported, 0 unchanged, 1 skipped');
    expect(
      demoSummary({
        rules: { origin: 'demo', imported: [], unchanged: [{ key: 'A', version_no: 1, line: 1 }], skipped: [], explanations: null },
        orders: { origin: 'demo', imported: [], unchanged: [], skipped: [], explanations: null },
      }),
    ).toBe('Rules: 0 imported, 1 unchanged, 0 skipped · Orders: 0 imported, 0 unchanged, 0 skipped');
  });

  it('parses rule citations and nothing else', () => {
    expect(parseRuleCitation('rule.SH-HOURLY-B@v1#0')).toEqual({ rule_code: 'SH-HOURLY-B', version_no: 1, chunk: 0, raw: 'rule.SH-HOURLY-B@v1#0' });
    expect(parseRuleCitation('rule.SH-DAYNIGHT-STD@v2#3')?.version_no).toBe(2);
    expect(parseRuleCitation('faq-warranty-eligibility@v1#2')).toBeNull();
    expect(parseRuleCitation('procedure:dc_12v')).toBeNull();
  });
});

describe('rule editor', () => {
  it('splits a backend error by the form field each part names, keeping "; " and nested names inside a message', () => {
    const r = ruleFieldErrors(
      'rule_code: must not be empty; lot_codes[1]: "A B" is not a code; versions[0].payload: segments[0].unit_price: "2,50" is not an amount; ' +
        'versions[0].effective_from: version 1 clashes with version 2: versions of a rule may not overlap; the stored version is open-ended; versions[0].version_no: version 1 appears twice',
    );
    expect(r.fields).toEqual({
      rule_code: 'must not be empty',
      lot_codes: 'lot_codes[1]: "A B" is not a code',
      payload: 'segments[0].unit_price: "2,50" is not an amount',
      effective_from: 'version 1 clashes with version 2: versions of a rule may not overlap; the stored version is open-ended',
    });
    expect(r.other).toEqual(['versions[0].version_no: version 1 appears twice']);
    expect(ruleFieldErrors('database error: locked')).toEqual({ fields: {}, other: ['database error: locked'] });
  });

  it('sends the new-rule form as one record of a rules file; a blank zone and end are left out', () => {
    const r = ruleCreatePayload({
      rule_code: ' SEA-1 ',
      name: 'Lot',
      city_code: 'sea',
      lot_codes: 'a, b;c  d',
      time_zone: ' ',
      status: 'inactive',
      effective_from: '2026-01-01T00:00:00',
      effective_to: '',
      payload: '{"segments": []}',
    });
    expect(r).toEqual({
      ok: true,
      payload: {
        rule: {
          rule_code: 'SEA-1',
          name: 'Lot',
          city_code: 'sea',
          lot_codes: ['a', 'b', 'c', 'd'],
          status: 'inactive',
          versions: [{ version_no: 1, effective_from: '2026-01-01T00:00', payload: { segments: [] } }],
        },
      },
    });
    expect(ruleCreatePayload({ rule_code: '', name: '', city_code: '', lot_codes: '', time_zone: '', status: 'active', effective_from: '', effective_to: '', payload: ' ' })).toEqual({
      ok: false,
      field: 'payload',
      message: 'Enter the tariff.',
    });
  });
});
