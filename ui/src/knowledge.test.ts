import { describe, expect, it } from 'vitest';
import type { KnowledgeSource } from './api';
import {
  askFilters,
  citationLabel,
  countByDocType,
  EMPTY_SEARCH,
  filterSources,
  formatDocError,
  formatIngested,
  formatScope,
  formatValidity,
  highlight,
  ingestSummary,
  isKnowledgeFile,
  MAX_KNOWLEDGE_FILE_BYTES,
  MAX_PDF_BYTES,
  parseChunkId,
  partitionFiles,
  queryTerms,
  searchPayload,
  sourceState,
  splitCitations,
  stem,
} from './knowledge';

const marked = (snippet: string, query: string) =>
  highlight(snippet, query)
    .filter((s) => s.mark)
    .map((s) => s.text);

describe('highlight', () => {
  it('marks words that start with a query word, case-insensitively', () => {
    expect(marked('Storage fees apply after 3 days of storage.', 'storage')).toEqual(['Storage', 'storage']);
    expect(marked('Storages and STORAGE-fee disputes', 'storage fee')).toEqual(['Storages', 'STORAGE', 'fee']);
  });

  it('keeps the text intact: the pieces join back to the snippet', () => {
    const s = 'Disputes follow the storage-fee dispute procedure; only the service manager may waive storage fees.';
    expect(
      highlight(s, 'storage waive')
        .map((x) => x.text)
        .join(''),
    ).toBe(s);
  });

  it('marks on word prefixes only, not inside words', () => {
    expect(marked('The leak-down test; a leaky valve; no bleak outcome', 'leak')).toEqual(['leak', 'leaky']);
  });

  it('stems the query lightly, so forms the backend matched are marked too', () => {
    expect(['waiver', 'fees', 'leaking', 'tires', 'water', 'gas', 'heaters', 'tested'].map(stem)).toEqual([
      'waiv',
      'fee',
      'leak',
      'tire',
      'water',
      'gas',
      'heat',
      'test',
    ]);
    expect(marked('Only the manager may waive fees; a fee waiver is rare.', 'fee waivers')).toEqual(['waive', 'fees', 'fee', 'waiver']);
  });

  it('ignores stop words and single letters but keeps numbers', () => {
    expect(queryTerms('how do I leak test the LP system').prefixes).toEqual(['leak', 'test', 'lp', 'system']);
    expect(queryTerms('12 V fuse, 2021').prefixes).toEqual(['12', 'fuse', '2021']);
    expect(marked('I do the test', 'how do I test')).toEqual(['test']);
  });

  it('returns the snippet unmarked when nothing matches, and nothing for an empty snippet', () => {
    expect(highlight('Roof vent fan', 'water heater')).toEqual([{ text: 'Roof vent fan', mark: false }]);
    expect(highlight('Roof vent fan', '')).toEqual([{ text: 'Roof vent fan', mark: false }]);
    expect(highlight('', 'fan')).toEqual([]);
  });

  it('handles Cyrillic and accented words', () => {
    expect(marked('Гарантия на узел: гарантийный срок', 'гарантия')).toEqual(['Гарантия']);
    expect(marked('Diagnóstico y autorización', 'diagnóstico')).toEqual(['Diagnóstico']);
  });

  it('marks CJK text by pairs of the query characters', () => {
    const segs = highlight('仓储费用按天计算', '仓储费');
    expect(segs).toEqual([
      { text: '仓储费', mark: true },
      { text: '用按天计算', mark: false },
    ]);
  });
});

describe('citations', () => {
  it('parses knowledge chunk ids', () => {
    expect(parseChunkId('faq-warranty-eligibility@v1#2')).toEqual({
      source_id: 'faq-warranty-eligibility',
      version: 1,
      chunk: 2,
      raw: 'faq-warranty-eligibility@v1#2',
    });
    expect(parseChunkId('component.water_heater.wh_board@v12#0')).toMatchObject({ source_id: 'component.water_heater.wh_board', version: 12, chunk: 0 });
  });

  it('leaves other citations alone', () => {
    for (const c of ['procedure:dc_12v', 'procedure:dc_12v#component:fan_fuse', 'x@v#1', '@v1#2', 'faq@v1', 'faq@v1#a']) {
      expect(parseChunkId(c)).toBeNull();
    }
  });

  it('splits a reply into chips and the rest, without duplicate chips', () => {
    const { knowledge, other } = splitCitations(['faq-a@v1#0', 'procedure:dc_12v', 'faq-a@v1#0', 'faq-a@v1#5']);
    expect(knowledge.map((k) => k.raw)).toEqual(['faq-a@v1#0', 'faq-a@v1#5']);
    expect(other).toEqual(['procedure:dc_12v']);
    expect(citationLabel(knowledge[1])).toBe('faq-a v1 #5');
  });
});

describe('import report', () => {
  it('formats a skipped document as file:line field: message', () => {
    expect(formatDocError({ file: 'bad.md', line: 3, field: 'doc_type', message: 'unknown doc_type "memo"' })).toBe('bad.md:3 doc_type: unknown doc_type "memo"');
    expect(formatDocError({ file: 'x.md', line: 1, field: null, message: 'a knowledge document starts with a `---` front-matter line' })).toBe(
      'x.md:1: a knowledge document starts with a `---` front-matter line',
    );
  });

  it('summarizes imported, unchanged and skipped (including files not sent)', () => {
    const report = {
      imported: [{ source_id: 'a', version: 1, chunks: 3, origin: 'a.md' }],
      unchanged: [{ source_id: 'b', version: 2, chunks: 1, origin: 'b.md' }],
      skipped: [{ file: 'c.md', line: 2, field: 'title', message: 'missing' }],
      chunks: 3,
    };
    expect(ingestSummary(report)).toBe('1 imported (3 chunks), 1 unchanged, 1 skipped');
    expect(ingestSummary(report, [{ file: 'd.pdf', reason: 'x' }])).toBe('1 imported (3 chunks), 1 unchanged, 2 skipped');
    expect(ingestSummary({ imported: [], unchanged: [], skipped: [], chunks: 0 })).toBe('0 imported, 0 unchanged, 0 skipped');
    expect(formatIngested({ source_id: 'a', version: 1, chunks: 1 })).toBe('a v1 · 1 chunk');
  });

  it('sends only .md, .markdown, .jsonl and .pdf files within their size limits', () => {
    expect(['a.md', 'B.MARKDOWN', 'c.jsonl', 'Manual.PDF', 'a.md.pdf'].every(isKnowledgeFile)).toBe(true);
    expect(['a.txt', 'md', 'a.pdf.txt', 'a.json'].some(isKnowledgeFile)).toBe(false);
    const { send, refused } = partitionFiles([
      { name: 'a.md', size: 10 },
      { name: 'photo.jpg', size: 10 },
      { name: 'huge.jsonl', size: MAX_KNOWLEDGE_FILE_BYTES + 1 },
      { name: 'manual.pdf', size: MAX_KNOWLEDGE_FILE_BYTES + 1 },
      { name: 'huge.pdf', size: MAX_PDF_BYTES + 1 },
    ]);
    expect(send.map((f) => f.name)).toEqual(['a.md', 'manual.pdf']);
    expect(refused.map((r) => r.file)).toEqual(['photo.jpg', 'huge.jsonl', 'huge.pdf']);
    expect(refused[0].reason).toContain('.pdf');
    expect(refused[1].reason).toContain('MiB');
    expect(refused[2].reason).toContain('24 MiB');
  });
});

describe('search filters → payload', () => {
  it('sends only the query when no filter is set (default top_k left out)', () => {
    expect(searchPayload({ ...EMPTY_SEARCH, query: '  storage fees ', top_k: 5 })).toEqual({ query: 'storage fees' });
  });

  it('maps every filter, trimmed, codes upper-cased, language lower-cased', () => {
    expect(
      searchPayload({
        query: 'storage',
        doc_type: 'policy_doc',
        city_code: ' sea ',
        lot_code: 'b',
        at_time: '2026-03-01',
        language: 'EN',
        include_inactive: true,
        top_k: 20,
      }),
    ).toEqual({
      query: 'storage',
      doc_type: 'policy_doc',
      city_code: 'SEA',
      lot_code: 'B',
      at_time: '2026-03-01',
      language: 'en',
      include_inactive: true,
      top_k: 20,
    });
  });

  it('leaves out blank filters and a false include_inactive; caps top_k at 50', () => {
    const p = searchPayload({ ...EMPTY_SEARCH, query: 'x', doc_type: ' ', city_code: '', include_inactive: false, top_k: 500 });
    expect(p).toEqual({ query: 'x', top_k: 50 });
    expect('include_inactive' in p).toBe(false);
  });

  it('gives ask the same filters without the query', () => {
    expect(askFilters({ ...EMPTY_SEARCH, query: 'q', city_code: 'pdx', top_k: 5 })).toEqual({ city_code: 'PDX' });
  });
});

function source(over: Partial<KnowledgeSource> = {}): KnowledgeSource {
  return {
    source_id: 'policy-storage-fees',
    version: 1,
    doc_type: 'policy_doc',
    source_type: 'document',
    title: 'Storage fees',
    language: 'en',
    city_code: null,
    lot_codes: [],
    effective_from: null,
    effective_to: null,
    superseded_at: null,
    active: true,
    chunks: 3,
    clarifying_questions: 0,
    requires_handoff: false,
    origin: 'knowledge/x.md',
    ingested_at: '2026-11-23T21:33:24Z',
    source: 'default',
    has_file: false,
    ...over,
  };
}

describe('sources', () => {
  it('formats scope and validity', () => {
    expect(formatScope(source({ city_code: 'SEA', lot_codes: ['A', 'B'] }))).toBe('SEA · lots A, B');
    expect(formatScope(source({ city_code: 'PDX', lot_codes: ['C'] }))).toBe('PDX · lot C');
    expect(formatScope(source({ lot_codes: ['C'] }))).toBe('lot C');
    expect(formatScope(source({ city_code: 'SEA' }))).toBe('SEA');
    expect(formatScope(source())).toBe('all sites');
    expect(formatValidity(source({ effective_from: '2026-01-01', effective_to: '2026-06-30T00:00:00Z' }))).toBe('2026-01-01 → 2026-06-30');
    expect(formatValidity(source({ effective_from: '2026-01-01T00:00:00Z' }))).toBe('from 2026-01-01');
    expect(formatValidity(source({ effective_to: '2026-06-30' }))).toBe('until 2026-06-30');
    expect(formatValidity(source())).toBe('always');
  });

  it('tells active, superseded and out-of-window versions apart', () => {
    expect(sourceState(source())).toBe('active');
    expect(sourceState(source({ active: false, superseded_at: '2026-02-01T00:00:00Z' }))).toBe('superseded');
    expect(sourceState(source({ active: false }))).toBe('inactive');
  });

  it('filters by doc_type and by title or id, and counts per type', () => {
    const all = [
      source(),
      source({ source_id: 'faq-tire-age', doc_type: 'faq', title: 'How old are these tires?' }),
      source({ source_id: 'sop-lp-leak-test', doc_type: 'sop', title: 'LP leak-down test' }),
    ];
    expect(filterSources(all, 'faq', '').map((s) => s.source_id)).toEqual(['faq-tire-age']);
    expect(filterSources(all, '', 'LEAK').map((s) => s.source_id)).toEqual(['sop-lp-leak-test']);
    expect(filterSources(all, '', 'faq-').map((s) => s.source_id)).toEqual(['faq-tire-age']);
    expect(filterSources(all, 'sop', 'tire')).toEqual([]);
    expect([...countByDocType(all)]).toEqual([
      ['policy_doc', 1],
      ['faq', 1],
      ['sop', 1],
    ]);
  });
});
