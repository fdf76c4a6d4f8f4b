//! Knowledge store hot paths. Targets (issue 4): search top-5 with two
//! filters over 100,000 chunks under 5 ms p50; ingest at least 2,000 chunks
//! per second. The corpus is generated: 10,000 documents of 10 sections
//! (one chunk each) over a 4,000-word vocabulary drawn with a Zipf-like
//! skew, spread over doc types and cities like a real shop's store.
//! Run: `cargo bench --bench knowledge_search`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use servicedesk::knowledge::index::{self, SearchQuery};
use servicedesk::knowledge::Document;
use servicedesk::Desk;

const DOCS: usize = 10_000;
const SECTIONS: usize = 10;
const VOCAB: usize = 4_000;

fn vocabulary() -> Vec<String> {
    const SYL: &[&str] = &[
        "ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "bre", "dan", "gor", "pel", "tum", "zar",
        "qui", "fen",
    ];
    (0..VOCAB)
        .map(|i| {
            let mut w = String::new();
            let mut n = i + SYL.len();
            while n > 0 {
                w.push_str(SYL[n % SYL.len()]);
                n /= SYL.len();
            }
            w
        })
        .collect()
}

/// Word `k` with probability falling off like 1/k (roughly Zipf).
fn word<'a>(rng: &mut fastrand::Rng, vocab: &'a [String]) -> &'a str {
    let u = rng.f64();
    let k = ((VOCAB as f64).powf(u) - 1.0) as usize;
    &vocab[k.min(VOCAB - 1)]
}

fn corpus(start: usize, docs: usize, rng: &mut fastrand::Rng, vocab: &[String]) -> Vec<Document> {
    const TYPES: &[&str] = &["faq", "policy_doc", "sop", "procedure"];
    const CITIES: &[Option<&str>] = &[Some("SEA"), Some("PDX"), Some("LAX"), None];
    (start..start + docs)
        .map(|i| {
            let mut body = String::new();
            for s in 0..SECTIONS {
                body.push_str(&format!("## Section {s}\n"));
                for _ in 0..70 {
                    body.push_str(word(rng, vocab));
                    body.push(' ');
                }
                body.push_str(".\n\n");
            }
            Document {
                source_id: format!("gen-{i}"),
                version: Some(1),
                doc_type: TYPES[i % TYPES.len()].into(),
                source_type: "document".into(),
                title: format!("{} {}", word(rng, vocab), word(rng, vocab)),
                language: "en".into(),
                city_code: CITIES[(i / 4) % CITIES.len()].map(str::to_string),
                lot_codes: Vec::new(),
                effective_from: None,
                effective_to: None,
                clarifying_questions: Default::default(),
                requires_handoff: false,
                body,
                origin: "bench".into(),
                version_line: 0,
                original: None,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let desk = rt.block_on(Desk::open(dir.path())).unwrap();
    let pool = desk.store().pool().clone();
    let vocab = vocabulary();
    let mut rng = fastrand::Rng::with_seed(7);

    // Build the 100,000-chunk corpus in batches, timing it as a first
    // ingest measurement as well.
    let started = std::time::Instant::now();
    for batch in 0..DOCS / 1_000 {
        let docs = corpus(batch * 1_000, 1_000, &mut rng, &vocab);
        rt.block_on(index::ingest(&pool, docs, Vec::new())).unwrap();
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "corpus: {} chunks ingested in {secs:.1} s = {:.0} chunks/s",
        DOCS * SECTIONS,
        (DOCS * SECTIONS) as f64 / secs
    );

    let mut group = c.benchmark_group("knowledge_search");
    // Mid-frequency words: common enough to match thousands of chunks.
    let queries: Vec<String> = (0..16)
        .map(|i| format!("{} {}", vocab[40 + i * 7], vocab[90 + i * 11]))
        .collect();
    let mut qi = 0;
    group.bench_function("top5_two_filters_100k_chunks", |b| {
        b.to_async(&rt).iter(|| {
            qi = (qi + 1) % queries.len();
            let q = SearchQuery {
                query: queries[qi].clone(),
                doc_type: Some("faq".into()),
                city_code: Some("SEA".into()),
                top_k: 5,
                ..Default::default()
            };
            let pool = &pool;
            async move { black_box(index::search(pool, &q).await.unwrap()) }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("knowledge_ingest");
    group.sample_size(10);
    group.throughput(Throughput::Elements((100 * SECTIONS) as u64));
    let mut next = DOCS;
    group.bench_function("batch_of_1000_chunks", |b| {
        b.iter_batched(
            || {
                let docs = corpus(next, 100, &mut rng, &vocab);
                next += 100;
                docs
            },
            |docs| rt.block_on(index::ingest(&pool, docs, Vec::new())).unwrap(),
            criterion::BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
