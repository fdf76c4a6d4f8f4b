//! One chat turn across lanes: the context engine (diagnosis), the
//! knowledge lane (cited answers and the strict clarification loop) and the
//! billing lane (`billing.rs`).
//!
//! Pure like the engine: it never does I/O. When it needs the knowledge
//! store or a billing tool it returns [`Need`]; the caller fetches it
//! outside the write transaction and calls again with everything fetched so
//! far ([`Retrieved`]). A billing answer needs two (the tool, then the rule
//! explanation it names); the Desk allows five. Order of a turn:
//!
//! 1. A pending clarification loop (`state.lanes["clarification"]`) takes
//!    the message first, and no search runs: the reply is the answer to the
//!    pending question ("12" is an answer), or "never mind" drops the loop
//!    (T11). A reply with nothing readable re-asks the question once (T7);
//!    a second one to the same question drops the loop, saying what it
//!    needed (T10): never the same question three times. After the last answer the lane answers from the document it
//!    kept, using the collected details, then escalates if the document
//!    requires a hand-off (T7).
//! 2. A billing question, the reply to a pending billing slot question, or
//!    a follow-up right after a billing reply goes to the billing lane.
//! 3. Otherwise the engine runs. A locate / explain / how-to reply is cited
//!    to its component note in the store. A message the engine could not
//!    place (fallback) or a fee question is searched in the knowledge store;
//!    a hit becomes a cited answer (T1, intent KNOWLEDGE) or, when the best
//!    document has clarifying questions, the first question of the loop.
//!    No hit leaves the engine's reply as it was.

use crate::engine::state::{AgentAction, SessionState, Submode};
use crate::engine::turn::{is_noise, quoted, RECENT_ACTIONS_KEPT};
use crate::engine::{registry::TransitionId, Engine, Reply, ReplyKind, TurnContext, TurnOutcome};
use crate::knowledge::answer::{self, questions_in};
use crate::knowledge::derived;
use crate::knowledge::index::{Retrieval, SearchHit, SearchQuery};
use crate::knowledge::text;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

pub const CLARIFICATION_LANE: &str = "clarification";

mod billing;

pub use billing::{
    default_plate_patterns, BillingCall, BillingFacts, DateScope, Known, PlatePattern, BILLING_LANE,
};

/// What a lane needs from the store before it can finish the turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Need {
    Search(Box<SearchQuery>),
    /// The section of a component note a subflow answered from.
    Lookup {
        source_id: String,
        heading: String,
    },
    /// A billing tool: arrears, fee verification, the rule in force.
    Billing(BillingCall),
    /// The first chunk of one version of a source (a rule explanation).
    Evidence {
        source_id: String,
        version: u32,
    },
}

/// What the store returned for a [`Need`].
#[derive(Debug, Clone)]
pub enum Fetched {
    Hits(Vec<SearchHit>),
    /// A knowledge search: the hits above the relevance floor, or the near
    /// titles when none is.
    Retrieval(Retrieval),
    /// A billing tool's result, or its error message (a user-facing fact:
    /// "no active rule for lot Z" is an answer, not a failure).
    Billing(Result<BillingFacts, String>),
}

#[derive(Debug, Clone)]
pub struct Retrieved {
    pub need: Need,
    pub fetched: Fetched,
}

fn found<'a>(retrieved: &'a [Retrieved], need: &Need) -> Option<&'a Fetched> {
    retrieved
        .iter()
        .find(|r| &r.need == need)
        .map(|r| &r.fetched)
}

fn hits<'a>(retrieved: &'a [Retrieved], need: &Need) -> Option<&'a [SearchHit]> {
    match found(retrieved, need)? {
        Fetched::Hits(h) => Some(h),
        Fetched::Retrieval(r) => Some(&r.hits),
        Fetched::Billing(_) => None,
    }
}

/// A pending clarification loop, as kept in the session state. It holds the
/// chunks it will answer from, so finishing the loop needs no search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClarificationLoop {
    pub source_id: String,
    pub version: u32,
    pub title: String,
    pub query: String,
    pub questions: Vec<String>,
    pub answers: Vec<String>,
    pub requires_handoff: bool,
    pub chunks: Vec<KeptChunk>,
    /// Unreadable replies to the pending question (noise, emoji, "?"): the
    /// first re-asks it, the second drops the loop. Loops kept before it
    /// was counted start at 0.
    #[serde(default)]
    pub unreadable: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptChunk {
    pub chunk_id: String,
    pub heading: String,
    pub text: String,
    pub language: String,
    pub snippet: String,
    /// Loops kept before sources were ranked have none: the shop's.
    #[serde(default)]
    pub source: crate::knowledge::Source,
    #[serde(default)]
    pub page: Option<u32>,
}

impl ClarificationLoop {
    pub fn from_state(state: &SessionState) -> Option<ClarificationLoop> {
        serde_json::from_value(state.lanes.get(CLARIFICATION_LANE)?.clone()).ok()
    }
}

pub(crate) static CANCEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\W*(never\s*mind|nevermind|cancel|forget (it|that)|skip (it|that|this)|drop it|отмена|отмени\w*|не надо|забудь\w*|неважно|olv[ií]dal[oa]|cancela\w*|d[eé]jalo|no importa)\b")
        .expect("cancel pattern")
});

static QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\?|？|^\W*(what|how|where|when|why|who|which|can|could|do|does|is|are|should|qu[eé]|c[oó]mo|d[oó]nde|cu[aá]ndo|por qu[eé]|cu[aá]l|qui[eé]n|puedo|hay|что|как|где|когда|почему|какой|какая|какие|можно|сколько|нужно|кто)\b")
        .expect("question pattern")
});

struct LaneWords {
    need_detail: &'static str,
    details: &'static str,
    dropped: &'static str,
    no_answer: &'static str,
    gave_up: &'static str,
    handoff: &'static str,
}

fn lane_words(lang: &str) -> &'static LaneWords {
    static EN: LaneWords = LaneWords {
        need_detail: "Before I answer from «{title}», I need a detail",
        details: "Details you gave",
        dropped: "Okay, I dropped that question.",
        no_answer: "I still need an answer to this",
        gave_up: "I still could not read an answer to «{question}», so I have dropped that question instead of asking it a third time. To answer from «{title}» I would need that detail; ask your question again when you have it.",
        handoff: "This needs the service manager: I have marked the session escalated so a person follows up.",
    };
    static ES: LaneWords = LaneWords {
        need_detail: "Antes de responder con «{title}», necesito un dato",
        details: "Datos que dio",
        dropped: "De acuerdo, dejé esa pregunta.",
        no_answer: "Todavía necesito una respuesta a esto",
        gave_up: "Sigo sin poder leer una respuesta a «{question}», así que dejé esa pregunta en lugar de hacerla por tercera vez. Para responder con «{title}» necesitaría ese dato; vuelva a preguntar cuando lo tenga.",
        handoff: "Esto necesita al jefe de servicio: marqué la sesión como escalada para que una persona le dé seguimiento.",
    };
    static RU: LaneWords = LaneWords {
        need_detail: "Прежде чем ответить по документу «{title}», нужно уточнить",
        details: "Ваши уточнения",
        dropped: "Хорошо, вопрос снят.",
        no_answer: "Мне всё ещё нужен ответ на вопрос",
        gave_up: "Ответ на вопрос «{question}» прочитать так и не удалось, поэтому я снял этот вопрос, чтобы не задавать его в третий раз. Чтобы ответить по документу «{title}», нужен этот ответ; задайте свой вопрос снова, когда он будет.",
        handoff: "Здесь нужен руководитель сервиса: сессия помечена как эскалированная, с вами свяжется человек.",
    };
    match lang {
        "es" => &ES,
        "ru" => &RU,
        _ => &EN,
    }
}

/// One turn. `Err(Need)` asks the caller to fetch and call again.
pub fn turn(
    engine: &Engine,
    state: &SessionState,
    ctx: &TurnContext,
    input: &str,
    retrieved: &[Retrieved],
) -> Result<TurnOutcome, Need> {
    if let Some(lp) = ClarificationLoop::from_state(state) {
        return Ok(continue_loop(engine, state, lp, input));
    }
    if let Some(done) = billing::turn(engine, state, input, retrieved)? {
        return Ok(done);
    }
    let mut out = engine.turn(state, ctx, input);
    if out.transition == TransitionId::D2Subflow {
        return cite_subflow(out, retrieved);
    }
    if out.transition == TransitionId::T9Recap {
        recap_billing_too(engine, &mut out, input);
    }
    // Mid-diagnosis, only a question goes to the store: "whatever dude" is
    // an unclear answer to the step, not a query.
    let fallback = out.transition == TransitionId::D8Fallback
        && out.intent == "UNCLEAR"
        && (state.active_procedure.is_none() || QUESTION.is_match(input));
    let fee_question = out.intent == "BILLING";
    if !(fallback || fee_question) || is_noise(input) {
        return Ok(out);
    }
    let lang = out.state.language.clone();
    if text::match_expression(&text::query_terms(input, Some(&lang))).is_none() {
        return Ok(out);
    }
    let need = Need::Search(Box::new(SearchQuery {
        query: input.chars().take(2_000).collect(),
        top_k: 5,
        asker_language: Some(lang.clone()),
        ..Default::default()
    }));
    let retrieval = match found(retrieved, &need) {
        Some(Fetched::Retrieval(r)) => r,
        _ => return Err(need),
    };
    if retrieval.hits.is_empty() {
        let mut out = out;
        let why = retrieval
            .below_floor
            .as_deref()
            .unwrap_or("no chunk matched");
        if !QUESTION.is_match(input) {
            out.trace.push(format!(
                "knowledge store searched for {}: nothing above the relevance floor ({why}); not a question, so the engine's reply stands",
                quoted(input)
            ));
            return Ok(out);
        }
        return Ok(not_covered_reply(
            engine, state, &out.state, input, retrieval, why,
        ));
    }
    Ok(knowledge_reply(
        engine,
        state,
        &out.state,
        input,
        &retrieval.hits,
    ))
}

/// T9 recaps billing history as well as diagnostic facts: a general recap
/// ("what have we checked so far?", one that names no step) lists the
/// billing answers of the session after the diagnosis's facts.
fn recap_billing_too(engine: &Engine, out: &mut TurnOutcome, input: &str) {
    let names_a_step = out
        .state
        .active_procedure
        .as_deref()
        .and_then(|p| engine.catalog.get(p))
        .is_some_and(|p| !crate::engine::extract::steps_named(p, input).is_empty());
    if names_a_step {
        return;
    }
    if let Some((section, n)) = billing::history_section(&out.state) {
        // Before the step the reply returns to, which stays its last line.
        let prompt = engine
            .step_prompt(&out.state)
            .map(|(_, p)| format!("\n{p}"))
            .filter(|p| out.reply.text.ends_with(p.as_str()));
        let body = match &prompt {
            Some(p) => out.reply.text[..out.reply.text.len() - p.len()].to_string(),
            None => out.reply.text.clone(),
        };
        out.reply.text = format!("{body}\n\n{section}{}", prompt.unwrap_or_default());
        out.trace.push(format!(
            "T9 also recapped {n} billing answer(s) of this session"
        ));
    }
}

/// A question the shop's documents do not cover: said so in the session's
/// language, with up to three near titles, citing nothing (T10: a truthful
/// bounded reply, then the active step again).
fn not_covered_reply(
    engine: &Engine,
    before: &SessionState,
    engine_after: &SessionState,
    input: &str,
    retrieval: &Retrieval,
    why: &str,
) -> TurnOutcome {
    let lang = engine_after.language.clone();
    let answer = answer::not_covered(&retrieval.near_titles, &lang);
    let st = lane_state(
        before,
        Some(engine_after),
        ReplyKind::Refusal,
        "knowledge:not-covered".into(),
    );
    let fired = format!(
        "T10_boundary: knowledge question {} → nothing above the relevance floor ({why}), {} near title(s){}; nothing cited",
        quoted(input),
        answer.did_you_mean.len(),
        if answer.did_you_mean.is_empty() {
            String::new()
        } else {
            format!(" offered: {}", answer.did_you_mean.join(" | "))
        }
    );
    let trace = vec![searched_line(&lang)];
    let (text, step_id) = with_step(engine, &st, answer.conclusion.clone());
    outcome(
        st,
        "KNOWLEDGE",
        TransitionId::T10Boundary,
        Reply {
            kind: ReplyKind::Refusal,
            text,
            step_id,
            citations: Vec::new(),
        },
        fired,
        trace,
    )
}

/// The state a knowledge-lane turn leaves: the diagnosis exactly as it was
/// (the engine's tentative changes are dropped), plus the turn count, the
/// language lock, and the action for the loop guard.
pub(crate) fn lane_state(
    before: &SessionState,
    engine_after: Option<&SessionState>,
    kind: ReplyKind,
    topic: String,
) -> SessionState {
    let mut st = before.clone();
    st.turn += 1;
    if let Some(after) = engine_after {
        st.language = after.language.clone();
        st.language_locked = after.language_locked;
    }
    st.recent_actions.push(AgentAction {
        turn: st.turn,
        kind: kind.as_str().into(),
        step: None,
        topic: Some(topic),
    });
    if st.recent_actions.len() > RECENT_ACTIONS_KEPT {
        let extra = st.recent_actions.len() - RECENT_ACTIONS_KEPT;
        st.recent_actions.drain(..extra);
    }
    st
}

pub(crate) fn with_step(
    engine: &Engine,
    st: &SessionState,
    text: String,
) -> (String, Option<String>) {
    match engine.step_prompt(st) {
        Some((step, prompt)) => (format!("{text}\n\n{prompt}"), Some(step)),
        None => (text, None),
    }
}

/// A lane's finished turn. `fired` is the trace's first line: what fired
/// in this turn, with its actual values (never the registry's description).
pub(crate) fn outcome(
    st: SessionState,
    intent: &'static str,
    transition: TransitionId,
    reply: Reply,
    fired: String,
    mut trace: Vec<String>,
) -> TurnOutcome {
    trace.insert(0, fired);
    TurnOutcome {
        state: st,
        intent,
        transition,
        reply,
        trace,
        new_facts: Vec::new(),
        superseded: Vec::new(),
        report: None,
        bases: Vec::new(),
    }
}

/// The trace line that says a knowledge search ran (and how it was asked).
fn searched_line(lang: &str) -> String {
    format!(
        "knowledge store searched (top {}, asker language {lang}, shop documents before defaults)",
        crate::knowledge::index::DEFAULT_TOP_K
    )
}

fn knowledge_reply(
    engine: &Engine,
    before: &SessionState,
    engine_after: &SessionState,
    input: &str,
    hits: &[SearchHit],
) -> TurnOutcome {
    let lang = engine_after.language.clone();
    let best = &hits[0];
    let questions = questions_in(best, &lang);
    let mut fired = format!(
        "T1_root_entry: knowledge question {} → {} hit(s) above the floor, best {} (score {:.2}, {} document{})",
        quoted(input),
        hits.len(),
        best.chunk_id,
        best.score,
        best.source.as_str(),
        best.page.map(|p| format!(", p. {p}")).unwrap_or_default()
    );
    let mut trace = vec![searched_line(&lang)];
    if !questions.is_empty() {
        let lp = ClarificationLoop {
            source_id: best.source_id.clone(),
            version: best.version,
            title: best.title.clone(),
            query: input.chars().take(2_000).collect(),
            questions: questions.clone(),
            answers: Vec::new(),
            requires_handoff: best.requires_handoff,
            chunks: hits
                .iter()
                .filter(|h| h.source_id == best.source_id && h.version == best.version)
                .map(|h| KeptChunk {
                    chunk_id: h.chunk_id.clone(),
                    heading: h.heading.clone(),
                    text: h.text.clone(),
                    language: h.language.clone(),
                    snippet: h.snippet.clone(),
                    source: h.source,
                    page: h.page,
                })
                .collect(),
            unreadable: 0,
        };
        let mut st = lane_state(
            before,
            Some(engine_after),
            ReplyKind::Question,
            format!("clarify:{}", best.source_id),
        );
        st.lanes.insert(
            CLARIFICATION_LANE.into(),
            serde_json::to_value(&lp).unwrap_or_default(),
        );
        fired.push_str(&format!(
            "; {} has {} clarifying question(s): loop entered, asking 1/{}",
            best.source_id,
            questions.len(),
            questions.len()
        ));
        let w = lane_words(&lang);
        let text = format!(
            "{} (1/{}): {}",
            w.need_detail.replace("{title}", &best.title),
            questions.len(),
            questions[0]
        );
        return outcome(
            st,
            "KNOWLEDGE",
            TransitionId::T1RootEntry,
            Reply {
                kind: ReplyKind::Question,
                text,
                step_id: None,
                citations: vec![best.chunk_id.clone()],
            },
            fired,
            trace,
        );
    }
    let terms = text::query_terms(input, Some(&lang));
    let answer = answer::compose(&terms, hits, &lang);
    let mut st = lane_state(
        before,
        Some(engine_after),
        ReplyKind::Answer,
        format!("knowledge:{}", best.source_id),
    );
    let mut body = answer::render_in(&answer, &lang);
    fired.push_str(&format!(
        "; answered citing {} chunk(s)",
        answer.citations.len()
    ));
    if answer.requires_handoff {
        escalate(&mut st, &best.title);
        body.push_str(&format!("\n\n{}", lane_words(&lang).handoff));
        trace.push(format!(
            "{} requires a hand-off: answered, then escalated",
            best.source_id
        ));
    }
    let (text, step_id) = with_step(engine, &st, body);
    outcome(
        st,
        "KNOWLEDGE",
        TransitionId::T1RootEntry,
        cited_reply(&answer, text, step_id),
        fired,
        trace,
    )
}

/// A knowledge answer as a reply: its citations are the chunk ids.
fn cited_reply(answer: &answer::Answer, text: String, step_id: Option<String>) -> Reply {
    Reply {
        kind: ReplyKind::Answer,
        text,
        step_id,
        citations: answer
            .citations
            .iter()
            .map(|c| c.chunk_id.clone())
            .collect(),
    }
}

fn escalate(st: &mut SessionState, title: &str) {
    st.escalation.escalated = true;
    st.escalation.reason = Some(format!(
        "«{title}» requires a hand-off to the service manager"
    ));
}

fn continue_loop(
    engine: &Engine,
    state: &SessionState,
    mut lp: ClarificationLoop,
    input: &str,
) -> TurnOutcome {
    let lang = state.language.clone();
    let w = lane_words(&lang);
    let n = lp.questions.len();
    let pending = lp.answers.len().min(n.saturating_sub(1));
    let answer_text: String = input
        .chars()
        .filter(|c| !c.is_control() || *c == '\n')
        .take(500)
        .collect::<String>()
        .trim()
        .to_string();
    let mut trace = vec!["clarification loop pending: no search ran".to_string()];
    if CANCEL.is_match(&answer_text) {
        let mut st = lane_state(
            state,
            None,
            ReplyKind::Answer,
            format!("clarify-cancel:{}", lp.source_id),
        );
        st.lanes.remove(CLARIFICATION_LANE);
        let fired = format!(
            "T11_clarification_cancel: loop on {} dropped at question {}/{n} by {}; {} answer(s) given discarded, the diagnosis kept",
            lp.source_id,
            pending + 1,
            quoted(&answer_text),
            lp.answers.len()
        );
        let (text, step_id) = with_step(engine, &st, w.dropped.to_string());
        return outcome(
            st,
            "CANCEL",
            TransitionId::T11ClarificationCancel,
            Reply {
                kind: ReplyKind::Answer,
                text,
                step_id,
                citations: Vec::new(),
            },
            fired,
            trace,
        );
    }
    if is_noise(input) || !answer_text.chars().any(char::is_alphanumeric) {
        lp.unreadable = lp.unreadable.saturating_add(1);
        if lp.unreadable >= 2 {
            // The second unreadable reply to the same question: drop the
            // loop rather than ask it a third time, and say what it needed.
            let mut st = lane_state(
                state,
                None,
                ReplyKind::Answer,
                format!("clarify-dropped:{}", lp.source_id),
            );
            st.lanes.remove(CLARIFICATION_LANE);
            let fired = format!(
                "T10_boundary: no readable answer to question {}/{n} of {} after {} unreadable replies (last {}); loop dropped, not asked a third time",
                pending + 1,
                lp.source_id,
                lp.unreadable,
                quoted(&answer_text)
            );
            let text = w
                .gave_up
                .replace("{question}", &lp.questions[pending])
                .replace("{title}", &lp.title);
            let (text, step_id) = with_step(engine, &st, text);
            return outcome(
                st,
                "KNOWLEDGE",
                TransitionId::T10Boundary,
                Reply {
                    kind: ReplyKind::Answer,
                    text,
                    step_id,
                    citations: Vec::new(),
                },
                fired,
                trace,
            );
        }
        // Nothing to record: the same question again, once, as a
        // clarification.
        let mut st = lane_state(
            state,
            None,
            ReplyKind::Clarification,
            format!("clarify:{}", lp.source_id),
        );
        st.lanes.insert(
            CLARIFICATION_LANE.into(),
            serde_json::to_value(&lp).unwrap_or_default(),
        );
        let fired = format!(
            "T7_clarification_continue: nothing readable in {} for question {}/{n} of {}: asked again (unreadable reply 1 of at most 1)",
            quoted(&answer_text),
            pending + 1,
            lp.source_id
        );
        return outcome(
            st,
            "KNOWLEDGE",
            TransitionId::T7ClarificationContinue,
            Reply {
                kind: ReplyKind::Clarification,
                text: format!(
                    "{} ({}/{n}): {}",
                    w.no_answer,
                    pending + 1,
                    lp.questions[pending]
                ),
                step_id: None,
                citations: Vec::new(),
            },
            fired,
            trace,
        );
    }
    lp.answers.push(answer_text.clone());
    lp.unreadable = 0;
    let mut fired = format!(
        "T7_clarification_continue: answer {}/{n} recorded for {}: {:?} to {:?}",
        lp.answers.len(),
        lp.source_id,
        answer_text,
        lp.questions[lp.answers.len() - 1]
    );
    if lp.answers.len() < n {
        let next = lp.answers.len();
        fired.push_str(&format!("; asking {}/{n}", next + 1));
        let mut st = lane_state(
            state,
            None,
            ReplyKind::Question,
            format!("clarify:{}", lp.source_id),
        );
        st.lanes.insert(
            CLARIFICATION_LANE.into(),
            serde_json::to_value(&lp).unwrap_or_default(),
        );
        return outcome(
            st,
            "KNOWLEDGE",
            TransitionId::T7ClarificationContinue,
            Reply {
                kind: ReplyKind::Question,
                text: format!("({}/{n}) {}", next + 1, lp.questions[next]),
                step_id: None,
                citations: Vec::new(),
            },
            fired,
            trace,
        );
    }
    // The last answer: answer from the kept chunks, ranked against the
    // question and the details together.
    let mut st = lane_state(
        state,
        None,
        ReplyKind::Answer,
        format!("knowledge:{}", lp.source_id),
    );
    st.lanes.remove(CLARIFICATION_LANE);
    let detail_query = format!("{} {}", lp.query, lp.answers.join(" "));
    let terms = text::query_terms(&detail_query, Some(&lang));
    let mut hits: Vec<(usize, usize, SearchHit)> = lp
        .chunks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let tokens = text::token_set(&format!("{}\n{}", c.heading, c.text), &c.language);
            let hit = SearchHit {
                source_id: lp.source_id.clone(),
                version: lp.version,
                title: lp.title.clone(),
                doc_type: String::new(),
                source_type: String::new(),
                language: c.language.clone(),
                chunk_id: c.chunk_id.clone(),
                heading: c.heading.clone(),
                score: 0.0,
                snippet: c.snippet.clone(),
                source: c.source,
                page: c.page,
                text: c.text.clone(),
                clarifying_questions: Default::default(),
                requires_handoff: lp.requires_handoff,
            };
            (text::matched_terms(&terms, &tokens), i, hit)
        })
        .collect();
    hits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let hits: Vec<SearchHit> = hits.into_iter().map(|(_, _, h)| h).collect();
    let answer = answer::compose(&terms, &hits, &lang);
    let details: Vec<String> = lp
        .questions
        .iter()
        .zip(&lp.answers)
        .map(|(q, a)| format!("- {q} → {a}"))
        .collect();
    let mut body = format!(
        "{}:\n{}\n\n{}",
        w.details,
        details.join("\n"),
        answer::render_in(&answer, &lang)
    );
    fired.push_str(&format!(
        "; all {n} answers in: answered from {} kept chunk(s), citing {}",
        hits.len(),
        answer.citations.len()
    ));
    if lp.requires_handoff {
        escalate(&mut st, &lp.title);
        body.push_str(&format!("\n\n{}", w.handoff));
        trace.push(format!(
            "{} requires a hand-off: answered first, then escalated",
            lp.source_id
        ));
    }
    let (text, step_id) = with_step(engine, &st, body);
    outcome(
        st,
        "KNOWLEDGE",
        TransitionId::T7ClarificationContinue,
        cited_reply(&answer, text, step_id),
        fired,
        trace,
    )
}

/// A locate / explain / how-to reply cites the section of the component
/// note it came from, as stored in the knowledge store.
fn cite_subflow(mut out: TurnOutcome, retrieved: &[Retrieved]) -> Result<TurnOutcome, Need> {
    let Some(cite) = out.reply.citations.first() else {
        return Ok(out);
    };
    let Some((system, component)) = cite
        .strip_prefix("procedure:")
        .and_then(|r| r.split_once("#component:"))
    else {
        return Ok(out);
    };
    let heading = match out.state.submode {
        Submode::Locate => derived::WHERE,
        Submode::Explain => derived::WHAT,
        _ => derived::HOW,
    };
    let need = Need::Lookup {
        source_id: derived::component_source_id(system, component),
        heading: heading.into(),
    };
    let Some(found) = hits(retrieved, &need) else {
        return Err(need);
    };
    if let Some(hit) = found.first() {
        out.trace
            .push(format!("cited from the knowledge store: {}", hit.chunk_id));
        out.reply.citations = vec![hit.chunk_id.clone()];
    } else {
        out.trace.push(
            "the component note is not in the knowledge store; cited to the procedure".into(),
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop kept before unreadable replies were counted reads back with
    /// none counted, so its next unreadable reply re-asks once.
    #[test]
    fn a_loop_kept_before_the_count_reads_back_with_none_counted() {
        let old = serde_json::json!({
            "source_id": "faq-warranty-eligibility", "version": 1,
            "title": "Warranty", "query": "is this covered?",
            "questions": ["What is the unit's model year?"], "answers": [],
            "requires_handoff": false, "chunks": []
        });
        let lp: ClarificationLoop = serde_json::from_value(old).unwrap();
        assert_eq!(lp.unreadable, 0);
    }

    #[test]
    fn a_quoted_message_is_cut_at_sixty_characters() {
        assert_eq!(quoted("short?"), "«short?»");
        let long = "é".repeat(70);
        assert_eq!(quoted(&long), format!("«{}…»", "é".repeat(60)));
    }
}
