// View logic for the knowledge workspace and the chat's knowledge citations:
// pure functions, no React, no backend calls (unit-tested in knowledge.test.ts).

import type { DocError, IngestReport, KnowledgeSearchInput, KnowledgeSource } from './api';
import { t as tr, type MessageKey } from './i18n';

// ---- highlighting ----

/** A piece of a snippet; `mark` pieces matched a word of the query. */
export interface Segment {
  text: string;
  mark: boolean;
}

/** Words too common to be worth highlighting (the backend ignores most of them too). */
const STOPWORDS = new Set(
  'a an and are as at be by can do does for from how i if in is it me my of on or so than that the this to was we what when where which who why will with you your'.split(
    ' ',
  ),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
/** Scripts written without spaces between words: matched as substrings (by pairs of characters). */
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

export interface QueryTerms {
  /** Lower-case words a snippet word must start with. */
  prefixes: string[];
  /** Lower-case runs (CJK pairs of characters) matched anywhere. */
  substrings: string[];
}

/** The query's words worth highlighting: prefixes for spaced scripts, character pairs for CJK. */
export function queryTerms(query: string): QueryTerms {
  const prefixes = new Set<string>();
  const substrings = new Set<string>();
  for (const m of query.toLocaleLowerCase().matchAll(WORD)) {
    const w = m[0].replace(/['’].*$/, '');
    if (NO_SPACES.test(w)) {
      const chars = Array.from(w);
      if (chars.length === 1) substrings.add(w);
      for (let i = 0; i + 1 < chars.length; i++) substrings.add(chars[i] + chars[i + 1]);
      continue;
    }
    if (STOPWORDS.has(w)) continue;
    // One letter matches nearly everything; numbers are kept ("12 V", "2021").
    if (Array.from(w).length < 2 && !/^\p{N}$/u.test(w)) continue;
    prefixes.add(stem(w));
  }
  return { prefixes: [...prefixes], substrings: [...substrings] };
}

const SUFFIXES: [string, number][] = [
  ['ings', 4],
  ['ing', 4],
  ['ers', 4],
  ['er', 4],
  ['ies', 4],
  ['es', 4],
  ['ed', 4],
  ['s', 3],
];

/**
 * A light English stem, so the prefix also marks the forms the backend's
 * stemmer matched: "waiver" → "waiv" (marks "waive"), "fees" → "fee",
 * "leaking" → "leak". Only plain a–z words; never shorter than 3–4 letters.
 */
export function stem(word: string): string {
  if (!/^[a-z]+$/.test(word)) return word;
  for (const [suffix, min] of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= min) return word.slice(0, -suffix.length);
  }
  return word;
}

/**
 * The snippet split into plain and marked pieces: a word is marked when it
 * starts with one of the query's words (case-insensitive, so "storage" marks
 * "Storage" and "storage-fee"'s "storage"); CJK text is marked where a pair of
 * the query's characters occurs. Adjacent marks are not merged across spaces.
 */
export function highlight(snippet: string, query: string | QueryTerms): Segment[] {
  const terms = typeof query === 'string' ? queryTerms(query) : query;
  if (snippet === '') return [];
  if (terms.prefixes.length === 0 && terms.substrings.length === 0) return [{ text: snippet, mark: false }];
  const ranges: [number, number][] = [];
  for (const m of snippet.matchAll(WORD)) {
    const word = m[0];
    const start = m.index!;
    const lower = word.toLocaleLowerCase();
    if (NO_SPACES.test(word)) {
      for (const sub of terms.substrings) {
        let at = lower.indexOf(sub);
        while (at >= 0) {
          ranges.push([start + at, start + at + sub.length]);
          at = lower.indexOf(sub, at + 1);
        }
      }
    } else if (terms.prefixes.some((p) => lower.startsWith(p))) {
      ranges.push([start, start + word.length]);
    }
  }
  if (ranges.length === 0) return [{ text: snippet, mark: false }];
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  const out: Segment[] = [];
  let pos = 0;
  for (const [a, b] of merged) {
    if (a > pos) out.push({ text: snippet.slice(pos, a), mark: false });
    out.push({ text: snippet.slice(a, b), mark: true });
    pos = b;
  }
  if (pos < snippet.length) out.push({ text: snippet.slice(pos), mark: false });
  return out;
}

// ---- citations ----

export interface KnowledgeRef {
  source_id: string;
  version: number;
  chunk: number;
  /** The citation as sent. */
  raw: string;
}

const CHUNK_ID = /^([A-Za-z0-9][\w.:-]*)@v(\d+)#(\d+)$/;

/** "faq-warranty-eligibility@v1#2" → its parts; null for any other citation (e.g. "procedure:dc_12v"). */
export function parseChunkId(citation: string): KnowledgeRef | null {
  const m = CHUNK_ID.exec(citation.trim());
  if (!m) return null;
  return { source_id: m[1], version: Number(m[2]), chunk: Number(m[3]), raw: citation.trim() };
}

/** A reply's citations: the knowledge chunks (for chips) and the rest (shown as before). */
export function splitCitations(citations: string[]): { knowledge: KnowledgeRef[]; other: string[] } {
  const knowledge: KnowledgeRef[] = [];
  const other: string[] = [];
  const seen = new Set<string>();
  for (const c of citations) {
    const ref = parseChunkId(c);
    if (ref) {
      if (!seen.has(ref.raw)) knowledge.push(ref);
      seen.add(ref.raw);
    } else {
      other.push(c);
    }
  }
  return { knowledge, other };
}

/** The text of a citation chip: "faq-warranty-eligibility v1 #2". */
export function citationLabel(ref: KnowledgeRef): string {
  return `${ref.source_id} v${ref.version} #${ref.chunk}`;
}

/** What a screen reader says for a chip. */
export function citationDescription(ref: KnowledgeRef): string {
  return tr('knowledge.citationDescription', { source: ref.source_id, version: ref.version, chunk: ref.chunk });
}

// ---- ingest ----

export const KNOWLEDGE_EXTENSIONS = ['.md', '.markdown', '.jsonl', '.pdf'] as const;
/** For the file picker's `accept`. */
export const KNOWLEDGE_ACCEPT = '.md,.markdown,.jsonl,text/markdown,.pdf,application/pdf';
/** PDF manuals are sent as base64 (a third larger); the server takes about 42 MB a request. */
export const MAX_PDF_BYTES = 24 * 1024 * 1024;

/** A PDF goes as bytes (base64), everything else as text. */
export function isPdfFile(name: string): boolean {
  return name.toLowerCase().endsWith('.pdf');
}
/** Larger files are not read (the whole batch goes in one request). */
export const MAX_KNOWLEDGE_FILE_BYTES = 8 * 1024 * 1024;

export function isKnowledgeFile(name: string): boolean {
  const lower = name.toLowerCase();
  return KNOWLEDGE_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/** A file the browser did not send, and why. */
export interface Refused {
  file: string;
  reason: string;
}

/** Which picked files go to the backend, and which are refused here (wrong type, too large, empty). */
export function partitionFiles<F extends { name: string; size: number }>(files: F[]): { send: F[]; refused: Refused[] } {
  const send: F[] = [];
  const refused: Refused[] = [];
  for (const f of files) {
    if (!isKnowledgeFile(f.name)) refused.push({ file: f.name, reason: tr('knowledge.notDocument') });
    else if (f.size > (isPdfFile(f.name) ? MAX_PDF_BYTES : MAX_KNOWLEDGE_FILE_BYTES))
      refused.push({ file: f.name, reason: tr('knowledge.tooLarge', { mib: (isPdfFile(f.name) ? MAX_PDF_BYTES : MAX_KNOWLEDGE_FILE_BYTES) / 1024 / 1024 }) });
    else send.push(f);
  }
  return { send, refused };
}

/** "bad.md:3 doc_type: unknown doc_type …" (the field only when the error names one). */
export function formatDocError(e: DocError): string {
  return `${e.file}:${e.line}${e.field ? ` ${e.field}` : ''}: ${e.message}`;
}

/** One line for the import report's status: "1 imported (3 chunks), 2 unchanged, 1 skipped". */
export function ingestSummary(report: IngestReport, refused: Refused[] = []): string {
  const parts = [
    tr('ingest.summaryImported', { n: report.imported.length }) +
      (report.imported.length > 0 ? ` (${tr('ingest.chunks', { n: report.chunks })})` : ''),
  ];
  parts.push(tr('ingest.summaryUnchanged', { n: report.unchanged.length }));
  parts.push(tr('ingest.summarySkipped', { n: report.skipped.length + refused.length }));
  return parts.join(', ');
}

/** "policy-storage-fees v2 · 8 chunks". */
export function formatIngested(s: { source_id: string; version: number; chunks: number }): string {
  return `${s.source_id} v${s.version} · ${tr('ingest.chunks', { n: s.chunks })}`;
}

// ---- search filters ----

/** The search form as typed (strings; blank means "any"). */
export interface SearchForm {
  query: string;
  doc_type: string;
  city_code: string;
  lot_code: string;
  /** YYYY-MM-DD from a date input, or an RFC 3339 time; blank is now. */
  at_time: string;
  language: string;
  include_inactive: boolean;
  top_k: number;
}

export const EMPTY_SEARCH: SearchForm = {
  query: '',
  doc_type: '',
  city_code: '',
  lot_code: '',
  at_time: '',
  language: '',
  include_inactive: false,
  top_k: 10,
};

/**
 * The knowledge_search payload for a form: only the filters given, trimmed;
 * city and lot codes upper-cased (the documents write them so); the default
 * top_k and a false include_inactive are left out.
 */
export function searchPayload(form: SearchForm): KnowledgeSearchInput {
  const out: KnowledgeSearchInput = { query: form.query.trim() };
  const doc = form.doc_type.trim();
  if (doc) out.doc_type = doc;
  const city = form.city_code.trim().toUpperCase();
  if (city) out.city_code = city;
  const lot = form.lot_code.trim().toUpperCase();
  if (lot) out.lot_code = lot;
  const at = form.at_time.trim();
  if (at) out.at_time = at;
  const lang = form.language.trim().toLowerCase();
  if (lang) out.language = lang;
  if (form.include_inactive) out.include_inactive = true;
  if (Number.isFinite(form.top_k) && form.top_k > 0 && form.top_k !== 5) out.top_k = Math.min(50, Math.floor(form.top_k));
  return out;
}

/** The same filters for knowledge_ask (without the query). */
export function askFilters(form: SearchForm): Omit<KnowledgeSearchInput, 'query'> {
  const { query: _query, ...filters } = searchPayload(form);
  return filters;
}

// ---- sources ----

/** "SEA · lots A, B", "SEA", "lots C", "all sites". */
export function formatScope(s: Pick<KnowledgeSource, 'city_code' | 'lot_codes'>): string {
  const lots = s.lot_codes.length > 0 ? tr('scope.lots', { n: s.lot_codes.length, lots: s.lot_codes.join(', ') }) : '';
  if (s.city_code && lots) return `${s.city_code} · ${lots}`;
  return s.city_code ?? (lots || tr('scope.allSites'));
}

/** "2026-01-01 → 2026-06-30", "from 2026-01-01", "until 2026-06-30", "always". */
export function formatValidity(s: Pick<KnowledgeSource, 'effective_from' | 'effective_to'>): string {
  const day = (t: string) => t.slice(0, 10);
  const from = s.effective_from ? day(s.effective_from) : null;
  const to = s.effective_to ? day(s.effective_to) : null;
  if (from && to) return `${from} → ${to}`;
  if (from) return tr('validity.from', { from });
  if (to) return tr('validity.until', { to });
  return tr('validity.always');
}

export type SourceState = 'active' | 'superseded' | 'inactive';

/** Active now; superseded by a newer version; or out of its validity window. */
export function sourceState(s: Pick<KnowledgeSource, 'active' | 'superseded_at'>): SourceState {
  if (s.active) return 'active';
  return s.superseded_at ? 'superseded' : 'inactive';
}

export const DOC_TYPE_LABEL: Record<string, MessageKey> = {
  policy_doc: 'docType.policy_doc',
  faq: 'docType.faq',
  sop: 'docType.sop',
  procedure: 'docType.procedure',
  component: 'docType.component',
  rule_explain: 'docType.rule_explain',
};

export function docTypeLabel(t: string): string {
  const k = DOC_TYPE_LABEL[t];
  return k ? tr(k) : t.replace(/_/g, ' ');
}

/** Sources of one doc_type (all when blank) whose title or id contains the text. */
export function filterSources(sources: KnowledgeSource[], docType: string, text: string): KnowledgeSource[] {
  const needle = text.trim().toLocaleLowerCase();
  return sources.filter(
    (s) =>
      (docType === '' || s.doc_type === docType) &&
      (needle === '' || s.title.toLocaleLowerCase().includes(needle) || s.source_id.toLocaleLowerCase().includes(needle)),
  );
}

/** How many sources of each doc_type, in the order given. */
export function countByDocType(sources: KnowledgeSource[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const s of sources) m.set(s.doc_type, (m.get(s.doc_type) ?? 0) + 1);
  return m;
}
