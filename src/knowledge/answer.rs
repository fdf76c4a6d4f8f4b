//! Cited answers composed from retrieved chunks, with no model: the
//! conclusion is the best-matching sentence of the best chunk, key points are
//! the next best sentences of the top chunks, and every one of them carries
//! the citation of the chunk it was taken from. With no evidence the answer
//! says so; it never fills the gap.

use super::index::{best_sentences, shorten, Retrieval, SearchHit, Source};
use super::text::QueryTerm;
use serde::Serialize;
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Citation {
    pub source_id: String,
    pub version: u32,
    pub chunk_id: String,
    pub title: String,
    pub snippet: String,
    /// The shop's own document or a shipped default.
    pub source: Source,
    /// The PDF page the chunk is on.
    pub page: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct KeyPoint {
    pub text: String,
    /// Index into `citations`.
    pub citation: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Answer {
    pub conclusion: String,
    pub key_points: Vec<KeyPoint>,
    pub citations: Vec<Citation>,
    /// The best document asks these before it can be applied (in the asker's
    /// language when the document has them translated).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clarifying_questions: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub requires_handoff: bool,
    /// When nothing covers the question: up to three titles near it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub did_you_mean: Vec<String>,
}

impl Answer {
    pub fn found(&self) -> bool {
        !self.citations.is_empty()
    }
}

const KEY_POINTS: usize = 4;
const SOURCES_USED: usize = 3;

pub struct Words {
    pub nothing: &'static str,
    pub according_to: &'static str,
    pub did_you_mean: &'static str,
    pub or: &'static str,
    pub page: &'static str,
    pub shop: &'static str,
    pub default: &'static str,
}

pub fn words(lang: &str) -> &'static Words {
    static EN: Words = Words {
        nothing: "The shop's documents don't cover this, so I won't guess. Try other words, or ask the service manager.",
        according_to: "According to",
        did_you_mean: "Did you mean",
        or: "or",
        page: "p.",
        shop: "shop document",
        default: "default document",
    };
    static ES: Words = Words {
        nothing: "Los documentos del taller no cubren esto, así que no voy a adivinar. Pruebe con otras palabras o consulte al jefe de servicio.",
        according_to: "Según",
        did_you_mean: "¿Quiso decir",
        or: "o",
        page: "pág.",
        shop: "documento del taller",
        default: "documento predeterminado",
    };
    static RU: Words = Words {
        nothing: "Документы мастерской этого не охватывают, гадать не буду. Попробуйте другие слова или спросите руководителя сервиса.",
        according_to: "Согласно документу",
        did_you_mean: "Возможно, вы имели в виду",
        or: "или",
        page: "с.",
        shop: "документ мастерской",
        default: "стандартный документ",
    };
    match lang {
        "es" => &ES,
        "ru" => &RU,
        _ => &EN,
    }
}

/// The questions of a hit in `lang`, else in the document's own language.
pub fn questions_in(hit: &SearchHit, lang: &str) -> Vec<String> {
    hit.clarifying_questions
        .get(lang)
        .or_else(|| hit.clarifying_questions.get(&hit.language))
        .cloned()
        .unwrap_or_default()
}

/// The answer to a question nothing covers: says so, offers the near
/// titles as a question ("Did you mean «A» or «B»?"), cites nothing.
pub fn not_covered(near_titles: &[String], lang: &str) -> Answer {
    let w = words(lang);
    let mut conclusion = w.nothing.to_string();
    let titles: Vec<String> = near_titles
        .iter()
        .take(super::index::NEAR_TITLES)
        .map(|t| format!("«{t}»"))
        .collect();
    if let Some((last, rest)) = titles.split_last() {
        let list = if rest.is_empty() {
            last.clone()
        } else {
            format!("{} {} {last}", rest.join(", "), w.or)
        };
        conclusion.push_str(&format!(" {} {list}?", w.did_you_mean));
    }
    Answer {
        conclusion,
        key_points: Vec::new(),
        citations: Vec::new(),
        clarifying_questions: Vec::new(),
        requires_handoff: false,
        did_you_mean: near_titles
            .iter()
            .take(super::index::NEAR_TITLES)
            .cloned()
            .collect(),
    }
}

/// An answer from a retrieval: cited from its hits, or [`not_covered`] with
/// its near titles.
pub fn from_retrieval(terms: &[QueryTerm], retrieval: &Retrieval, lang: &str) -> Answer {
    if retrieval.hits.is_empty() {
        not_covered(&retrieval.near_titles, lang)
    } else {
        compose(terms, &retrieval.hits, lang)
    }
}

/// An answer to `terms` from `hits` (best first), worded for `lang`.
pub fn compose(terms: &[QueryTerm], hits: &[SearchHit], lang: &str) -> Answer {
    let w = words(lang);
    let ordered = section_first(terms, hits);
    let hits = ordered.as_slice();
    let Some(best) = hits.first() else {
        return not_covered(&[], lang);
    };
    let mut citations: Vec<Citation> = Vec::new();
    let mut key_points = Vec::new();
    let mut used = Vec::new();
    let mut conclusion = String::new();
    for hit in hits.iter().take(SOURCES_USED) {
        let sentences = best_sentences(&hit.text, terms, &hit.language, Some(lang), 3);
        let citation = citations.len();
        citations.push(Citation {
            source_id: hit.source_id.clone(),
            version: hit.version,
            chunk_id: hit.chunk_id.clone(),
            title: hit.title.clone(),
            snippet: hit.snippet.clone(),
            source: hit.source,
            page: hit.page,
        });
        for s in sentences {
            if used.contains(&s) {
                continue;
            }
            if conclusion.is_empty() {
                conclusion = format!(
                    "{} «{}» (v{}): {}",
                    w.according_to,
                    best.title,
                    best.version,
                    shorten(&s, 400)
                );
            } else if key_points.len() < KEY_POINTS {
                key_points.push(KeyPoint {
                    text: shorten(&s, 400),
                    citation,
                });
            }
            used.push(s);
        }
    }
    Answer {
        conclusion,
        key_points,
        citations,
        clarifying_questions: questions_in(best, lang),
        requires_handoff: best.requires_handoff,
        did_you_mean: Vec::new(),
    }
}

/// "Where is the board?" is answered from the "Where" section of the best
/// component note, and "how do I check it?" from its "How to check" one,
/// even when BM25 ranked another section of the same note higher (its body
/// repeats the component's name more often).
fn section_first(terms: &[QueryTerm], hits: &[SearchHit]) -> Vec<SearchHit> {
    let mut out = hits.to_vec();
    let Some(best) = hits.first().filter(|h| h.doc_type == "component") else {
        return out;
    };
    let asks = |words: &[&str]| {
        terms
            .iter()
            .any(|t| t.variants.iter().any(|v| words.contains(&v.as_str())))
    };
    let section = if asks(&["where", "donde", "где"]) {
        super::derived::WHERE
    } else if asks(&["check", "test", "comprob", "провер", "проверк"]) {
        super::derived::HOW
    } else {
        return out;
    };
    if let Some(i) = out
        .iter()
        .position(|h| h.source_id == best.source_id && h.heading.ends_with(section))
    {
        let hit = out.remove(i);
        out.insert(0, hit);
    }
    out
}

/// The answer as chat text: the conclusion, the key points, and the sources
/// as `[n] title (source@vN#chunk, p. N, shop document)` lines.
pub fn render(answer: &Answer) -> String {
    render_in(answer, "en")
}

/// [`render`] with the citation labels in `lang`.
pub fn render_in(answer: &Answer, lang: &str) -> String {
    let w = words(lang);
    let mut out = answer.conclusion.clone();
    for p in &answer.key_points {
        out.push_str(&format!("\n- {} [{}]", p.text, p.citation + 1));
    }
    if !answer.citations.is_empty() {
        out.push('\n');
        for (i, c) in answer.citations.iter().enumerate() {
            let page = c
                .page
                .map(|p| format!(", {} {p}", w.page))
                .unwrap_or_default();
            let source = match c.source {
                Source::Shop => w.shop,
                Source::Default => w.default,
            };
            out.push_str(&format!(
                "\n[{}] {} ({}{page}, {source})",
                i + 1,
                c.title,
                c.chunk_id
            ));
        }
    }
    out
}
