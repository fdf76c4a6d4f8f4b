// View logic for the billing workspace: money, wall-clock times, the piece
// timeline and the rule validity timeline, payload summaries, and the form →
// payload mappings. Pure functions, no React, no backend calls (unit-tested in
// billing.test.ts).

import type {
  ArrearsStatus,
  BillingImportReport,
  BillingPayload,
  BillingRule,
  BillingSegment,
  BillingSkipped,
  DemoReport,
  FeeCheck,
  ImportedItem,
  Piece,
  RuleStatus,
  RuleVersion,
  SimulateInput,
  VerifyAction,
} from './api';
import { t as tr, type MessageKey } from './i18n';

// ---- money (integer cents; never a float on the way) ----

const MONEY = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

/** "12.50" → 1250, "-2.5" → -250, "3" → 300; null for anything else. */
export function parseMoney(s: string | null | undefined): number | null {
  if (s == null) return null;
  const m = MONEY.exec(String(s).trim());
  if (!m) return null;
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0') || '0');
  if (!Number.isSafeInteger(cents)) return null;
  return m[1] === '-' && cents !== 0 ? -cents : cents;
}

/** 1250 → "12.50", -250 → "-2.50". */
export function formatCents(cents: number): string {
  const neg = cents < 0;
  const abs = Math.abs(Math.trunc(cents));
  const s = `${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
  return neg ? `-${s}` : s;
}

/** A money string as the backend sent it, normalized to two places ("6" → "6.00"); unparseable text stays as it is. */
export function formatMoney(s: string | null | undefined): string {
  const c = parseMoney(s);
  return c == null ? String(s ?? '—') : formatCents(c);
}

/** A difference with its sign: "+2.50", "-1.00", "0.00". */
export function formatSigned(s: string): string {
  const c = parseMoney(s);
  if (c == null) return s;
  return c > 0 ? `+${formatCents(c)}` : formatCents(c);
}

/** The sum of money strings, in cents (unparseable ones count 0). */
export function sumMoney(values: string[]): number {
  return values.reduce((acc, v) => acc + (parseMoney(v) ?? 0), 0);
}

// ---- wall-clock times ("2026-02-10T10:00", site-local) ----

export interface Wall {
  /** YYYY-MM-DD */
  date: string;
  /** Minutes since midnight, 0..1440. */
  minute: number;
}

const WALL = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/;

export function parseWall(s: string): Wall | null {
  const m = WALL.exec(s.trim());
  if (!m) return null;
  return { date: m[1], minute: Number(m[2]) * 60 + Number(m[3]) };
}

/** Days since 1970-01-01 for a YYYY-MM-DD date. */
export function dayNumber(date: string): number {
  const [y, mo, d] = date.split('-').map(Number);
  return Math.round(Date.UTC(y, mo - 1, d) / 86_400_000);
}

export function dateOfDay(n: number): string {
  return new Date(n * 86_400_000).toISOString().slice(0, 10);
}

/** Minutes since the epoch of a wall-clock time (as if it were UTC: only for ordering and spans). */
export function wallMinutes(s: string): number | null {
  const w = parseWall(s);
  return w ? dayNumber(w.date) * 1440 + w.minute : null;
}

export function clock(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

/** "2026-02-10T10:00" → "2026-02-10 10:00". */
export function formatWall(s: string | null | undefined): string {
  if (!s) return '—';
  const w = parseWall(s);
  return w ? `${w.date} ${clock(w.minute)}` : s;
}

/** A stay in few characters: "2026-02-12 09:00–12:00" on one day, else both ends in full. */
export function formatStay(entry: string, exit: string): string {
  const a = parseWall(entry);
  const b = parseWall(exit);
  if (!a || !b) return `${entry} → ${exit}`;
  if (a.date === b.date) return `${a.date} ${clock(a.minute)}–${clock(b.minute)}`;
  return `${a.date} ${clock(a.minute)} → ${b.date} ${clock(b.minute)}`;
}

const WEEKDAYS = ['wd.sun', 'wd.mon', 'wd.tue', 'wd.wed', 'wd.thu', 'wd.fri', 'wd.sat'] as const;

/** "Tue 2026-02-10". */
export function dayLabel(date: string): string {
  const wd = tr(WEEKDAYS[((dayNumber(date) % 7) + 7 + 4) % 7]);
  return `${wd} ${date}`;
}

/** 130 → "2 h 10 min", 45 → "45 min", 2880 → "2 d". */
export function formatMinutes(total: number): string {
  const d = Math.floor(total / 1440);
  const h = Math.floor((total % 1440) / 60);
  const m = total % 60;
  const parts: string[] = [];
  if (d) parts.push(tr('dur.d', { n: d }));
  if (h) parts.push(tr('dur.h', { n: h }));
  if (m || parts.length === 0) parts.push(tr('dur.min', { n: m }));
  return parts.join(' ');
}

/** The current wall clock in an IANA time zone ("2026-03-02T08:00"); UTC when the zone is unknown. */
export function wallNow(timeZone: string, now: Date = new Date()): string {
  const fmt = (tz: string) =>
    new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(now);
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = fmt(timeZone || 'UTC');
  } catch {
    parts = fmt('UTC');
  }
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '00';
  return `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}`;
}

// ---- windows ----

/** "20:00-08:00" → [1200, 480]; null when it is not HH:MM-HH:MM. */
export function parseWindow(w: string): [number, number] | null {
  const m = /^\s*(\d{2}):(\d{2})\s*-\s*(\d{2}):(\d{2})\s*$/.exec(w);
  if (!m) return null;
  const a = Number(m[1]) * 60 + Number(m[2]);
  const b = Number(m[3]) * 60 + Number(m[4]);
  if (a > 1440 || b > 1440) return null;
  return [a, b];
}

/** The stretches of one day a window covers (a window crossing midnight is two). */
export function windowBands(w: string): [number, number][] {
  const p = parseWindow(w);
  if (!p) return [];
  const [a, b] = p;
  if (a < b) return [[a, b]];
  if (a === b) return [];
  const out: [number, number][] = [];
  if (b > 0) out.push([0, b]);
  if (a < 1440) out.push([a, 1440]);
  return out;
}

// ---- the piece timeline ----

export interface PieceBar {
  /** Index of the piece in the breakdown. */
  piece: number;
  fromMinute: number;
  toMinute: number;
  /** Percent of the day. */
  left: number;
  width: number;
  /** The part that carries the amount label (the longest part of a piece split at midnight). */
  labelled: boolean;
  /** The piece goes on before / after this part (split at midnight). */
  continuesBefore: boolean;
  continuesAfter: boolean;
}

export interface TimelineRow {
  date: string;
  bars: PieceBar[];
}

export interface WindowBand {
  segmentIndex: number;
  segment: string;
  type: string;
  window: string;
  left: number;
  width: number;
}

export interface Timeline {
  rows: TimelineRow[];
  /** The windows of the segments that priced the stay, the same on every day. */
  bands: WindowBand[];
  /** The segments, for a legend (by segment index). */
  legend: { segmentIndex: number; segment: string; type: string; window: string }[];
  /** Entry and exit markers: the row date and percent of the day. */
  entry: { date: string; left: number } | null;
  exit: { date: string; left: number } | null;
}

const pct = (minute: number) => Math.round((minute / 1440) * 100000) / 1000;

/** Rows at most; a longer stay shows its first days and says how many are left out. */
export const MAX_TIMELINE_DAYS = 62;

/**
 * The breakdown as a timeline: one row per calendar day from the entry (or
 * first piece) to the exit, a bar per piece positioned by its start and end
 * time of day. A piece that crosses midnight (a night window) is split into a
 * part on each day; the longest part carries the label.
 */
export function pieceTimeline(pieces: Piece[], entry?: string, exit?: string, maxDays = MAX_TIMELINE_DAYS): Timeline & { hiddenDays: number } {
  const byDay = new Map<number, PieceBar[]>();
  let first = Infinity;
  let last = -Infinity;
  const e = entry ? parseWall(entry) : null;
  const x = exit ? parseWall(exit) : null;
  if (e) first = last = dayNumber(e.date);
  if (x) {
    // An exit at midnight ends the stay on the day before.
    const d = dayNumber(x.date) - (x.minute === 0 && (!e || dayNumber(x.date) > dayNumber(e.date)) ? 1 : 0);
    first = Math.min(first, d);
    last = Math.max(last, d);
  }
  pieces.forEach((p, i) => {
    const s = parseWall(p.start);
    const t = parseWall(p.end);
    if (!s || !t) return;
    const sd = dayNumber(s.date);
    let td = dayNumber(t.date);
    let tm = t.minute;
    if (tm === 0 && td > sd) {
      td -= 1;
      tm = 1440;
    }
    if (td < sd || (td === sd && tm < s.minute)) {
      // A wall clock going backwards (DST fall-back): draw it where it starts.
      td = sd;
      tm = s.minute;
    }
    const parts: PieceBar[] = [];
    for (let d = sd; d <= td; d++) {
      const from = d === sd ? s.minute : 0;
      const to = d === td ? tm : 1440;
      const bar: PieceBar = {
        piece: i,
        fromMinute: from,
        toMinute: to,
        left: pct(from),
        width: pct(to - from),
        labelled: false,
        continuesBefore: d > sd,
        continuesAfter: d < td,
      };
      parts.push(bar);
      if (!byDay.has(d)) byDay.set(d, []);
      byDay.get(d)!.push(bar);
      first = Math.min(first, d);
      last = Math.max(last, d);
    }
    let best = parts[0];
    for (const b of parts) if (b.toMinute - b.fromMinute > best.toMinute - best.fromMinute) best = b;
    if (best) best.labelled = true;
  });
  const rows: TimelineRow[] = [];
  let hiddenDays = 0;
  if (Number.isFinite(first)) {
    for (let d = first; d <= last; d++) {
      if (rows.length >= maxDays) {
        hiddenDays = last - d + 1;
        break;
      }
      rows.push({ date: dateOfDay(d), bars: (byDay.get(d) ?? []).sort((a, b) => a.fromMinute - b.fromMinute) });
    }
  }
  const legendMap = new Map<number, Timeline['legend'][number]>();
  for (const p of pieces) {
    if (!legendMap.has(p.segment_index)) legendMap.set(p.segment_index, { segmentIndex: p.segment_index, segment: p.segment, type: String(p.type), window: p.window });
  }
  const legend = [...legendMap.values()].sort((a, b) => a.segmentIndex - b.segmentIndex);
  const bands: WindowBand[] = [];
  for (const l of legend) {
    for (const [a, b] of windowBands(l.window)) {
      bands.push({ segmentIndex: l.segmentIndex, segment: l.segment, type: l.type, window: l.window, left: pct(a), width: pct(b - a) });
    }
  }
  return {
    rows,
    bands,
    legend,
    entry: e ? { date: e.date, left: pct(e.minute) } : null,
    exit: x ? (x.minute === 0 && e && x.date !== e.date ? { date: dateOfDay(dayNumber(x.date) - 1), left: 100 } : { date: x.date, left: pct(x.minute) }) : null,
    hiddenDays,
  };
}

/** What a piece's pricing lines say: "20 × 2.00 = 40.00" (one per tier used). */
export function pieceLinesText(p: Piece): string {
  if (p.lines.length === 0) return p.type === 'free' ? tr('rules.free') : '—';
  return p.lines.map((l) => `${l.units} × ${formatMoney(l.unit_price)} = ${formatMoney(l.amount)}`).join(' + ');
}

/** What a screen reader hears for a bar. */
export function pieceDescription(p: Piece): string {
  const s = parseWall(p.start);
  const t = parseWall(p.end);
  const span =
    s && t
      ? tr('piece.span', { from: `${s.date} ${clock(s.minute)}`, to: `${t.date === s.date ? '' : `${t.date} `}${clock(t.minute)}` })
      : tr('piece.span', { from: p.start, to: p.end });
  const cap = p.cap_applied ? tr('piece.capped', { cap: formatMoney(p.cap), was: formatMoney(p.uncapped_amount) }) : '';
  return `${p.segment} (${segmentTypeLabel(String(p.type))}) ${span}: ${formatMinutes(p.minutes)}, ${formatMoney(p.amount)}${cap}`;
}

// ---- the validity timeline of a rule's versions ----

export type VersionState = 'current' | 'past' | 'future';

export function versionState(v: Pick<RuleVersion, 'effective_from' | 'effective_to'>, nowWall: string): VersionState {
  const now = wallMinutes(nowWall) ?? 0;
  const from = wallMinutes(v.effective_from) ?? -Infinity;
  const to = v.effective_to ? (wallMinutes(v.effective_to) ?? Infinity) : Infinity;
  if (now < from) return 'future';
  if (now >= to) return 'past';
  return 'current';
}

/** The version in force at a wall-clock time, if any. */
export function versionAt<V extends Pick<RuleVersion, 'effective_from' | 'effective_to'>>(versions: V[], wall: string): V | null {
  return versions.find((v) => versionState(v, wall) === 'current') ?? null;
}

export interface ValidityBar {
  version_no: number;
  left: number;
  width: number;
  open: boolean;
  state: VersionState;
  label: string;
}

export interface ValidityLayout {
  bars: ValidityBar[];
  /** Month ticks: percent and "2026-03". */
  ticks: { left: number; label: string }[];
  /** Where "now" is, when inside the range. */
  now: number | null;
  start: string;
  end: string;
}

/** "v1 2026-01-01 00:00 → 2026-03-01 00:00" / "v2 from 2026-03-01 00:00 (open)". */
export function versionSpan(v: Pick<RuleVersion, 'version_no' | 'effective_from' | 'effective_to'>): string {
  return v.effective_to
    ? `v${v.version_no} ${formatWall(v.effective_from)} → ${formatWall(v.effective_to)}`
    : tr('rules.openEnded', { v: v.version_no, from: formatWall(v.effective_from) });
}

/**
 * Bars for a rule's versions on one axis: from the earliest effective_from to
 * the latest end (or now, whichever is later), plus room after it for the
 * open-ended versions to run on.
 */
export function validityLayout(versions: Pick<RuleVersion, 'version_no' | 'effective_from' | 'effective_to'>[], nowWall: string): ValidityLayout {
  const now = wallMinutes(nowWall) ?? 0;
  const froms = versions.map((v) => wallMinutes(v.effective_from)).filter((x): x is number => x != null);
  const tos = versions.map((v) => (v.effective_to ? wallMinutes(v.effective_to) : null)).filter((x): x is number => x != null);
  if (froms.length === 0) return { bars: [], ticks: [], now: null, start: '', end: '' };
  const start = Math.min(...froms);
  let end = Math.max(...froms, ...tos, now);
  const anyOpen = versions.some((v) => !v.effective_to);
  const span0 = Math.max(end - start, 30 * 1440);
  if (anyOpen || end === start) end += Math.max(Math.round(span0 * 0.15), 14 * 1440);
  const span = end - start;
  const at = (m: number) => Math.round(((m - start) / span) * 100000) / 1000;
  const bars = versions.map((v) => {
    const f = wallMinutes(v.effective_from) ?? start;
    const t = v.effective_to ? (wallMinutes(v.effective_to) ?? end) : end;
    return {
      version_no: v.version_no,
      left: at(f),
      width: Math.max(at(t) - at(f), 0.5),
      open: !v.effective_to,
      state: versionState(v, nowWall),
      label: versionSpan(v),
    };
  });
  // Month ticks, thinned to at most ~8.
  const ticks: { left: number; label: string }[] = [];
  const sd = dateOfDay(Math.floor(start / 1440));
  let y = Number(sd.slice(0, 4));
  let mo = Number(sd.slice(5, 7));
  const months: { m: number; label: string }[] = [];
  for (let guard = 0; guard < 1200; guard++) {
    const m = Math.round(Date.UTC(y, mo - 1, 1) / 60000);
    if (m > end) break;
    if (m >= start) months.push({ m, label: `${y}-${String(mo).padStart(2, '0')}` });
    mo++;
    if (mo > 12) {
      mo = 1;
      y++;
    }
  }
  const step = Math.max(1, Math.ceil(months.length / 8));
  months.forEach((t, i) => {
    if (i % step === 0) ticks.push({ left: at(t.m), label: t.label });
  });
  return {
    bars,
    ticks,
    now: now >= start && now <= end ? at(now) : null,
    start: formatWall(dateOfDay(Math.floor(start / 1440)) + 'T00:00'),
    end: formatWall(dateOfDay(Math.floor(end / 1440)) + 'T00:00'),
  };
}

// ---- payload in words ----

/** One line per segment: "day 08:00–20:00 · periodic · 2.00 per 30 min · cap 20.00 per occurrence". */
export function segmentSummary(s: BillingSegment): string {
  const head = `${s.name} ${String(s.window).replace('-', '–')}`;
  const cap = s.cap ? tr(crossesMidnight(s.window) ? 'pay.capNight' : 'pay.capDay', { cap: formatMoney(s.cap) }) : '';
  switch (s.type) {
    case 'free':
      return `${head}: ${tr('rules.free')}`;
    case 'periodic':
      return `${head}: ${tr('pay.per', { price: formatMoney(s.unit_price), n: s.unit_minutes })}${cap}`;
    case 'tiered': {
      const tiers = (s.tiers ?? []).map((x, i, all) => {
        const prev = i === 0 ? 0 : all[i - 1].up_to_minutes ?? 0;
        const price = tr('pay.per', { price: formatMoney(x.unit_price), n: s.unit_minutes });
        if (x.up_to_minutes == null) return i === 0 ? price : tr('pay.then', { price });
        return i === 0 ? tr('pay.first', { price, n: x.up_to_minutes }) : tr('pay.thenUpTo', { price, n: x.up_to_minutes, prev });
      });
      return `${head}: ${tiers.join(', ')}${cap}`;
    }
    default:
      return `${head}: ${s.type}`;
  }
}

function crossesMidnight(w: string): boolean {
  const p = parseWindow(w);
  return !!p && p[0] > p[1];
}

/** The whole payload in words: the grace period, then each segment. */
export function payloadSummary(p: BillingPayload): string[] {
  const lines: string[] = [];
  if (p.free_minutes > 0) lines.push(tr('pay.grace', { n: p.free_minutes }));
  else lines.push(tr('pay.noGrace'));
  for (const s of p.segments) lines.push(segmentSummary(s));
  const covered = p.segments.reduce((acc, s) => acc + windowBands(s.window).reduce((a, [x, y]) => a + (y - x), 0), 0);
  if (covered < 1440) lines.push(tr('pay.outside', { time: formatMinutes(1440 - covered) }));
  return lines;
}

// ---- forms → payloads ----

export interface SimulatorForm {
  by: 'rule' | 'scope';
  rule_code: string;
  city_code: string;
  lot_code: string;
  /** datetime-local values ("2026-02-10T10:00", maybe with ":00" seconds). */
  entry: string;
  exit: string;
}

/** A datetime-local value as the backend's wall-clock minute ("2026-02-10T10:00"). */
export function normalizeLocal(v: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::00(?:\.0+)?)?$/.exec(v.trim());
  return m ? `${m[1]}T${m[2]}` : v.trim();
}

export type FormResult<T> = { ok: true; payload: T } | { ok: false; field: string; message: string };

/** The simulator's form as a billing_simulate payload, or what is missing. */
export function simulatePayload(f: SimulatorForm): FormResult<SimulateInput> {
  const entry = normalizeLocal(f.entry);
  const exit = normalizeLocal(f.exit);
  let base: { rule_code: string } | { city_code: string; lot_code: string };
  if (f.by === 'rule') {
    const code = f.rule_code.trim();
    if (!code) return { ok: false, field: 'rule_code', message: tr('sim.pickRuleErr') };
    base = { rule_code: code };
  } else {
    const city = f.city_code.trim().toUpperCase();
    const lot = f.lot_code.trim().toUpperCase();
    if (!city) return { ok: false, field: 'city_code', message: tr('sim.enterCity') };
    if (!lot) return { ok: false, field: 'lot_code', message: tr('sim.enterLot') };
    base = { city_code: city, lot_code: lot };
  }
  if (!entry) return { ok: false, field: 'entry', message: tr('sim.enterEntry') };
  if (!exit) return { ok: false, field: 'exit', message: tr('sim.enterExit') };
  return { ok: true, payload: { ...base, entry, exit } };
}

/** The arrears form as (plate, city?): trimmed, city upper-cased. */
export function arrearsPayload(plate: string, city: string): FormResult<{ plate_no: string; city_code?: string }> {
  const p = plate.trim();
  if (!p) return { ok: false, field: 'plate_no', message: tr('orders.enterPlate') };
  const c = city.trim().toUpperCase();
  return { ok: true, payload: c ? { plate_no: p, city_code: c } : { plate_no: p } };
}

export function ordersFilter(plate: string, city: string): { plate_no?: string; city_code?: string } {
  const out: { plate_no?: string; city_code?: string } = {};
  if (plate.trim()) out.plate_no = plate.trim();
  if (city.trim()) out.city_code = city.trim().toUpperCase();
  return out;
}

// ---- imports ----

export type BillingFileKind = 'rules' | 'orders';

/** .json → rules (a JSON array), .jsonl / .ndjson → orders (one a line); null for other files. */
export function billingFileKind(name: string): BillingFileKind | null {
  const n = name.toLowerCase();
  if (n.endsWith('.jsonl') || n.endsWith('.ndjson')) return 'orders';
  if (n.endsWith('.json')) return 'rules';
  return null;
}

export const BILLING_ACCEPT = '.json,.jsonl,.ndjson,application/json';
export const MAX_BILLING_FILE_BYTES = 16 * 1024 * 1024;

/** "line 3 (record 2, SH-X): versions[0].payload: message". */
export function formatSkipped(s: BillingSkipped): string {
  return `${tr('skipped.where', { line: s.line, record: `${s.record}${s.key ? `, ${s.key}` : ''}` })}: ${s.field ? `${s.field}: ` : ''}${s.message}`;
}

export function importSummary(r: Pick<BillingImportReport, 'imported' | 'unchanged' | 'skipped'>): string {
  return [
    tr('ingest.summaryImported', { n: r.imported.length }),
    tr('ingest.summaryUnchanged', { n: r.unchanged.length }),
    tr('ingest.summarySkipped', { n: r.skipped.length }),
  ].join(', ');
}

export function importedLabel(i: Pick<ImportedItem, 'key' | 'version_no'>): string {
  return i.version_no != null ? `${i.key} v${i.version_no}` : i.key;
}

export function demoSummary(r: DemoReport): string {
  return tr('billing.demoSummary', { rules: importSummary(r.rules), orders: importSummary(r.orders) });
}

// ---- labels ----

export function resultLabel(r: FeeCheck): string {
  return r === 'consistent' ? tr('verify.consistent') : tr('verify.mismatch');
}

export function actionLabel(a: VerifyAction): string {
  return a === 'auto_approve' ? tr('verify.autoApprove') : tr('verify.manualReview');
}

export function arrearsStatusLabel(s: ArrearsStatus): string {
  return s === 'HAS_ARREARS' ? tr('orders.hasArrears') : tr('orders.noArrears');
}

export function ruleStatusLabel(s: RuleStatus): string {
  return s === 'active' ? tr('rules.active') : tr('rules.inactive');
}

/** "SH · LOT-A, LOT-B". */
export function ruleScope(r: Pick<BillingRule, 'city_code' | 'lot_codes'>): string {
  return r.lot_codes.length ? `${r.city_code} · ${r.lot_codes.join(', ')}` : r.city_code;
}

/** Whether an order is unpaid, partly paid or paid. */
export function paymentState(o: { total_amount: string; paid_amount: string }): 'paid' | 'partly' | 'unpaid' {
  const total = parseMoney(o.total_amount) ?? 0;
  const paid = parseMoney(o.paid_amount) ?? 0;
  if (paid >= total) return 'paid';
  return paid > 0 ? 'partly' : 'unpaid';
}

// ---- rule citations in the chat ----

export interface RuleCitation {
  rule_code: string;
  version_no: number;
  chunk: number;
  raw: string;
}

const RULE_CITATION = /^rule\.([A-Za-z0-9][\w.:-]*)@v(\d+)#(\d+)$/;

/** "rule.SH-HOURLY-B@v1#0" → the rule and version; null for any other citation. */
export function parseRuleCitation(c: string): RuleCitation | null {
  const m = RULE_CITATION.exec(c.trim());
  if (!m) return null;
  return { rule_code: m[1], version_no: Number(m[2]), chunk: Number(m[3]), raw: c.trim() };
}

const SEGMENT_TYPE: Record<string, MessageKey> = {
  free: 'segmentType.free',
  periodic: 'segmentType.periodic',
  tiered: 'segmentType.tiered',
};

/** A tariff segment's type ("periodic") in the interface language; an unknown one as written. */
export function segmentTypeLabel(type: string): string {
  const k = SEGMENT_TYPE[type];
  return k ? tr(k) : type;
}

// ---- the rule editor ----

/** The fields of the rule editor, each a place an error can be shown beside. */
export const RULE_FORM_FIELDS = ['rule_code', 'name', 'city_code', 'lot_codes', 'time_zone', 'status', 'effective_from', 'effective_to', 'payload'] as const;
export type RuleFormField = (typeof RULE_FORM_FIELDS)[number];

export interface RuleForm {
  rule_code: string;
  name: string;
  city_code: string;
  /** Lot codes separated by commas or blanks. */
  lot_codes: string;
  time_zone: string;
  status: 'active' | 'inactive';
  /** datetime-local values, in the rule's time zone. */
  effective_from: string;
  effective_to: string;
  /** The tariff as JSON text (docs/spec/billing.md). */
  payload: string;
}

export interface VersionForm {
  rule_code: string;
  effective_from: string;
  effective_to: string;
  payload: string;
}

/** A starting tariff for a new rule: storage by the day. */
export const PAYLOAD_TEMPLATE = JSON.stringify(
  { free_minutes: 0, segments: [{ name: 'day', window: '00:00-24:00', type: 'periodic', unit_minutes: 1440, unit_price: '25.00' }] },
  null,
  2,
);

/** The payload text as JSON, or why it is not (the backend checks what it means). */
function payloadJson(text: string): { ok: true; value: unknown } | { ok: false; field: 'payload'; message: string } {
  if (!text.trim()) return { ok: false, field: 'payload', message: tr('ruleEditor.payloadEmpty') };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, field: 'payload', message: tr('ruleEditor.payloadNotJson', { error: e instanceof Error ? e.message : String(e) }) };
  }
}

/**
 * The new-rule form as one record of a rules file, for billing_rule_create.
 * Only what cannot be sent is checked here (a payload that is not JSON); the
 * backend checks every field as an import does and names the wrong ones.
 */
export function ruleCreatePayload(f: RuleForm): FormResult<{ rule: Record<string, unknown> }> {
  const payload = payloadJson(f.payload);
  if (!payload.ok) return payload;
  const to = normalizeLocal(f.effective_to);
  const version: Record<string, unknown> = { version_no: 1, effective_from: normalizeLocal(f.effective_from), payload: payload.value };
  if (to) version.effective_to = to;
  const rule: Record<string, unknown> = {
    rule_code: f.rule_code.trim(),
    name: f.name.trim(),
    city_code: f.city_code.trim(),
    lot_codes: f.lot_codes.split(/[\s,;]+/).filter(Boolean),
    status: f.status,
    versions: [version],
  };
  // Left out, the rule's zone is UTC, as in a rules file.
  if (f.time_zone.trim()) rule.time_zone = f.time_zone.trim();
  return { ok: true, payload: { rule } };
}

/** The add-version form as a billing_rule_version_add payload. */
export function versionAddPayload(f: VersionForm): FormResult<{ rule_code: string; effective_from: string; effective_to?: string; payload: unknown }> {
  if (!f.rule_code.trim()) return { ok: false, field: 'rule_code', message: tr('sim.pickRuleErr') };
  const payload = payloadJson(f.payload);
  if (!payload.ok) return payload;
  const to = normalizeLocal(f.effective_to);
  return {
    ok: true,
    payload: { rule_code: f.rule_code.trim(), effective_from: normalizeLocal(f.effective_from), ...(to ? { effective_to: to } : {}), payload: payload.value },
  };
}

// The backend names each wrong field as `field: what is wrong`, the pairs
// joined by "; ". Only a field of the form starts a new pair, so a "; " or a
// nested name (segments[0].unit_price) inside a message stays in it.
const FIELD_START = /(?:^|; )((?:versions\[\d+\]\.)?(?:rule_code|name|city_code|lot_codes(?:\[\d+\])?|time_zone|status|effective_from|effective_to|payload|version_no)|versions(?:\[\d+\])?): /g;

/**
 * A rule editor error split by the form field it is about (a version's
 * fields without their `versions[0].`, a lot's under `lot_codes`); what
 * names no field of the form (a duplicate version number, a message without
 * a field) is in `other`.
 */
export function ruleFieldErrors(message: string): { fields: Partial<Record<RuleFormField, string>>; other: string[] } {
  const starts = [...message.matchAll(FIELD_START)];
  const fields: Partial<Record<RuleFormField, string>> = {};
  const other: string[] = [];
  const lead = starts.length > 0 ? message.slice(0, starts[0].index) : message;
  if (lead.trim()) other.push(lead.trim());
  starts.forEach((m, i) => {
    const end = i + 1 < starts.length ? starts[i + 1].index : message.length;
    const text = message.slice(m.index + m[0].length, end).trim();
    const name = m[1].replace(/^versions\[\d+\]\./, '').replace(/\[\d+\]$/, '');
    const field = (RULE_FORM_FIELDS as readonly string[]).includes(name) ? (name as RuleFormField) : null;
    if (field) {
      // A lot's own error says which lot: keep its index.
      const said = m[1].startsWith('lot_codes[') ? `${m[1]}: ${text}` : text;
      fields[field] = fields[field] ? `${fields[field]}; ${said}` : said;
    } else {
      other.push(`${m[1]}: ${text}`);
    }
  });
  return { fields, other };
}
