//! Which kind of deployment a set of conversations comes from: one of nine archetypes,
//! detected from the vocabulary of the turns and from explicit metadata hints.
//!
//! # Scoring
//!
//! Terms come from `lexicons/archetypes.tsv` (format described in the file), matched on
//! whole words in [`Text::lower`] with one Aho–Corasick pass per turn (shared with the
//! marker phrases when a conversation is read: `score::context`, which searches a
//! text that is not ASCII once more for the patterns in other scripts). The detector
//! only keeps integer counters — per term, how often it matched in human and in AI
//! turns, and per recognised hint how often it was given — so [`ArchetypeDetector::merge`]
//! is exact and order-independent, and every float is computed in
//! [`ArchetypeDetector::finish`]:
//!
//! - a term's effective count is `human + ai_share · ai` (the AI side echoes the domain but
//!   says less about what people come for); its contribution to each archetype it is
//!   listed under is `weight · √(effective count)`, so a broad vocabulary outweighs one
//!   word repeated;
//! - a recognised hint contributes `hint_weight · √(times given)` to the archetype it names;
//! - an archetype's score is the sum of its contributions.
//!
//! # Decision
//!
//! With `top` and `second` the two highest scores (ties broken by [`Archetype::ALL`]
//! order) and `margin = (top − second) / top`:
//!
//! - [`Archetype::Custom`] wins as a fallback when `top < min_evidence` (too little
//!   evidence) or `margin < near_tie` (the top two are nearly tied);
//! - otherwise the top archetype wins.
//!
//! Confidence is `margin · (1 − e^(−top/saturation))` (0 when there is no evidence): how clearly
//! the winner leads, times how much evidence it has, saturating. A fallback therefore
//! always has low confidence (below 0.32 for lack of evidence, below 0.1 for a tie).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use rustc_hash::FxHashMap;
use serde::Serialize;
use smallvec::SmallVec;

use crate::assembly::Role;
use crate::features::phrases::{self, Occurrence};
use crate::features::text::Text;

/// The archetype lexicon, embedded at compile time.
const LEXICON_TSV: &str =
    crate::data_file::data_file!(include_bytes!("../../lexicons/archetypes.tsv"));

crate::params! {
    /// How the archetype is decided (no labels yet; `archetype` in the tables).
    pub struct ArchetypeParams ("archetype", "detect") {
        /// Weight of a term match in an AI turn relative to one in a human turn.
        ai_share,
        /// Contribution of a recognised hint given once.
        hint_weight,
        /// Below this top score the archetype is `custom`.
        min_evidence,
        /// Below this relative margin between the top two scores the archetype is `custom`.
        near_tie,
        /// Score at which the evidence factor of the confidence reaches 1 − 1/e.
        saturation,
    }
}

static PARAMS: LazyLock<ArchetypeParams> =
    LazyLock::new(|| ArchetypeParams::read(&crate::model::TABLES).expect("archetype parameters"));
/// Terms listed in the evidence.
const MAX_EVIDENCE_TERMS: usize = 5;
/// Longer hints are ignored.
const MAX_HINT_LEN: usize = 64;
/// Number of archetypes that have terms (all but `custom`).
const NAMED: usize = 8;

/// A kind of AI deployment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Archetype {
    /// Customer-service chatbot: orders, delivery, refunds, billing.
    CxChatbot,
    /// Assistant for a company's own employees: HR, policy, internal tools.
    InternalCopilot,
    /// Tutor: homework, lessons, exams.
    AiTutor,
    /// Health assistant: symptoms, medication, appointments.
    Healthcare,
    /// Sales agent: pricing, plans, demos, contracts.
    SalesAgent,
    /// Coding assistant or agent: code, errors, tooling.
    CodingAgent,
    /// Moderation: reports, bans, appeals, policy violations.
    Moderation,
    /// Companion: feelings, loneliness, personal chat.
    Companion,
    /// None of the above, or not enough evidence to tell.
    Custom,
}

impl Archetype {
    /// All archetypes, in the order used to break ties.
    pub const ALL: [Archetype; 9] = [
        Archetype::CxChatbot,
        Archetype::InternalCopilot,
        Archetype::AiTutor,
        Archetype::Healthcare,
        Archetype::SalesAgent,
        Archetype::CodingAgent,
        Archetype::Moderation,
        Archetype::Companion,
        Archetype::Custom,
    ];

    /// The snake_case name, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            Archetype::CxChatbot => "cx_chatbot",
            Archetype::InternalCopilot => "internal_copilot",
            Archetype::AiTutor => "ai_tutor",
            Archetype::Healthcare => "healthcare",
            Archetype::SalesAgent => "sales_agent",
            Archetype::CodingAgent => "coding_agent",
            Archetype::Moderation => "moderation",
            Archetype::Companion => "companion",
            Archetype::Custom => "custom",
        }
    }

    /// Parses a name as written by [`Archetype::as_str`], ignoring ASCII case, surrounding
    /// space, and `-` or space in place of `_`.
    pub fn parse(s: &str) -> Option<Archetype> {
        let s = s.trim();
        Archetype::ALL.into_iter().find(|a| {
            let name = a.as_str().as_bytes();
            name.len() == s.len()
                && name.iter().zip(s.bytes()).all(|(&n, c)| {
                    let c = match c.to_ascii_lowercase() {
                        b'-' | b' ' => b'_',
                        c => c,
                    };
                    n == c
                })
        })
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Detected environment: archetype, confidence in `[0, 1]`, and the terms that decided it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Environment {
    /// The detected archetype.
    pub archetype: Archetype,
    /// How sure the detection is, in `[0, 1]` (see the module docs), with 4 decimals.
    // Rounded as every score is: its `exp` differs in the last bits between targets
    // (glibc against the WebAssembly build's own), and the output must not.
    #[serde(serialize_with = "crate::score::layer_z::ser4")]
    pub confidence: f64,
    /// Hints, then the strongest terms (at most five) of the winning archetype; for a
    /// `custom` fallback, first a `fallback` item with the reason, then the evidence of
    /// the best candidate.
    pub evidence: Vec<ArchetypeEvidence>,
}

/// One piece of evidence for the detected archetype.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ArchetypeEvidence {
    /// Kind of evidence: `term`, `metadata_hint` or `fallback`.
    pub signal: String,
    /// The term as listed in the lexicon, the normalised hint, or the fallback reason
    /// (`insufficient_evidence`, or `near_tie:<top>,<runner-up>`).
    pub detail: String,
    /// Matches of the term, or times the hint was given (0 for a fallback).
    pub count: u32,
    /// What it added to the archetype's score (for a fallback: the best score), with 4
    /// decimals.
    #[serde(serialize_with = "crate::score::layer_z::ser4")]
    pub contribution: f64,
}

/// Accumulates term and hint evidence over turns and conversations.
#[derive(Debug, Default, Clone)]
pub struct ArchetypeDetector {
    /// Per lexicon term: matches in human turns and in AI turns. Empty until the first
    /// match; shorter than the lexicon when merged from an empty detector.
    hits: Vec<[u64; 2]>,
    /// Per normalised, recognised hint: the archetype it names and times given.
    hints: BTreeMap<String, (Archetype, u64)>,
}

impl ArchetypeDetector {
    /// An empty detector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one turn (human or AI text both count; AI text a bit less).
    ///
    /// A match in an AI turn counts 0.6 of one in a human turn. Terms are found with
    /// one Aho–Corasick pass over `text.lower` ([`ArchetypeDetector::add_matches`]).
    pub fn add_turn(&mut self, text: &Text, role: Role) {
        let Some(ac) = &*AUTOMATON else {
            return;
        };
        let mut matches: SmallVec<[Occurrence; 16]> = SmallVec::new();
        phrases::each(ac, text, |o| matches.push(o));
        self.add_matches(text, role, &matches);
    }

    /// Adds one turn from every occurrence of the patterns of [`term_patterns`]
    /// (`features::phrases`, in any order), so that a reader looking for other phrases
    /// too finds them all in one pass.
    ///
    /// Terms count from left to right: at the first position where a term that lies on
    /// word boundaries starts, the longest such term counts, and counting goes on after
    /// it. So the longest match wins ("tracking number" counts once, not also as
    /// "tracking"), and when the longest term at a position runs into a word ("bug
    /// report" in "bug reporting") a shorter one starting there counts.
    pub fn add_matches(&mut self, text: &Text, role: Role, matches: &[Occurrence]) {
        let lex = &*LEXICON;
        let slot = match role {
            Role::Human => 0,
            Role::Ai => 1,
        };
        let mut valid: SmallVec<[Occurrence; 16]> = matches
            .iter()
            .copied()
            .filter(|&(start, end, pattern)| lex.on_boundaries(text, pattern, start, end))
            .collect();
        // By start, the longest first.
        valid.sort_unstable_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
        let mut at = 0;
        for (start, end, pattern) in valid {
            if start < at {
                continue;
            }
            let term = lex.patterns[pattern].term;
            if !lex.terms[term].is_mask() {
                if self.hits.len() < lex.terms.len() {
                    self.hits.resize(lex.terms.len(), [0; 2]);
                }
                self.hits[term][slot] += 1;
            }
            at = end;
        }
    }

    /// Adds an explicit hint such as metadata.archetype / metadata.environment_type / metadata.domain value; a hint naming an archetype (e.g. "ai_tutor", "tutor", "coding", "support", "helpdesk") weighs heavily.
    ///
    /// The hint is lowercased and runs of other characters than letters and digits
    /// become `_` ("Customer Support" → `customer_support`). It is recognised when it
    /// is an archetype name or a known alias, or else when its `_`-separated words
    /// include aliases of exactly one archetype (`k12_education` → `ai_tutor`).
    /// Unrecognised, ambiguous or over-long hints are ignored.
    pub fn add_hint(&mut self, hint: &str) {
        let Some(norm) = normalize_hint(hint) else {
            return;
        };
        let Some(archetype) = resolve_hint(&norm) else {
            return;
        };
        self.hints.entry(norm).or_insert((archetype, 0)).1 += 1;
    }

    /// Merges another detector (used to combine per-conversation detectors computed in parallel).
    ///
    /// Only integer counters are added, so merging is exact and gives the same
    /// [`finish`](Self::finish) in any order and grouping.
    pub fn merge(&mut self, other: &ArchetypeDetector) {
        if self.hits.len() < other.hits.len() {
            self.hits.resize(other.hits.len(), [0; 2]);
        }
        for (mine, theirs) in self.hits.iter_mut().zip(&other.hits) {
            mine[0] = mine[0].saturating_add(theirs[0]);
            mine[1] = mine[1].saturating_add(theirs[1]);
        }
        for (hint, &(archetype, count)) in &other.hints {
            let entry = self.hints.entry(hint.clone()).or_insert((archetype, 0));
            entry.1 = entry.1.saturating_add(count);
        }
    }

    /// The detected environment (see the module docs for the rule).
    pub fn finish(&self) -> Environment {
        let lex = &*LEXICON;
        let mut scores = [0.0f64; 9];
        for (term, hits) in lex.terms.iter().zip(&self.hits) {
            if hits == &[0, 0] {
                continue;
            }
            let root = effective_root(*hits);
            for (score, &w) in scores.iter_mut().zip(&term.weights) {
                if w > 0.0 {
                    *score += w * root;
                }
            }
        }
        for &(archetype, count) in self.hints.values() {
            scores[archetype.index()] += hint_contribution(count);
        }

        // Stable sort: equal scores keep `Archetype::ALL` order.
        let mut ranked = Archetype::ALL;
        ranked.sort_by(|a, b| scores[b.index()].total_cmp(&scores[a.index()]));
        let (best, runner_up) = (ranked[0], ranked[1]);
        let top = scores[best.index()];
        let second = scores[runner_up.index()];
        let margin = if top > 0.0 { (top - second) / top } else { 0.0 };
        let p = &*PARAMS;
        let confidence = (margin * (1.0 - (-top / p.saturation).exp())).clamp(0.0, 1.0);

        let fallback = if top < p.min_evidence {
            Some("insufficient_evidence".to_string())
        } else if margin < p.near_tie {
            Some(format!("near_tie:{},{}", best.as_str(), runner_up.as_str()))
        } else {
            None
        };
        let mut evidence = Vec::new();
        let archetype = match fallback {
            Some(reason) => {
                evidence.push(ArchetypeEvidence {
                    signal: "fallback".into(),
                    detail: reason,
                    count: 0,
                    contribution: top,
                });
                Archetype::Custom
            }
            None => best,
        };
        if top > 0.0 {
            self.evidence_for(best, &mut evidence);
        }
        Environment {
            archetype,
            confidence,
            evidence,
        }
    }

    /// Appends the hints, then the strongest terms, supporting `archetype`.
    fn evidence_for(&self, archetype: Archetype, out: &mut Vec<ArchetypeEvidence>) {
        let by_contribution = |a: &ArchetypeEvidence, b: &ArchetypeEvidence| {
            b.contribution
                .total_cmp(&a.contribution)
                .then_with(|| a.detail.cmp(&b.detail))
        };
        let mut hints: Vec<ArchetypeEvidence> = self
            .hints
            .iter()
            .filter(|(_, (a, _))| *a == archetype)
            .map(|(hint, &(_, count))| ArchetypeEvidence {
                signal: "metadata_hint".into(),
                detail: hint.clone(),
                count: saturate(count),
                contribution: hint_contribution(count),
            })
            .collect();
        hints.sort_by(by_contribution);
        out.extend(hints);

        let weight_index = archetype.index();
        if weight_index >= NAMED {
            return;
        }
        let lex = &*LEXICON;
        let mut terms: Vec<ArchetypeEvidence> = lex
            .terms
            .iter()
            .zip(&self.hits)
            .filter(|(term, hits)| term.weights[weight_index] > 0.0 && **hits != [0, 0])
            .map(|(term, &hits)| ArchetypeEvidence {
                signal: "term".into(),
                detail: term.text.clone(),
                count: saturate(hits[0].saturating_add(hits[1])),
                contribution: term.weights[weight_index] * effective_root(hits),
            })
            .collect();
        terms.sort_by(by_contribution);
        terms.truncate(MAX_EVIDENCE_TERMS);
        out.extend(terms);
    }
}

/// √ of a term's effective count, `human + ai_share · ai`.
fn effective_root(hits: [u64; 2]) -> f64 {
    (hits[0] as f64 + PARAMS.ai_share * hits[1] as f64).sqrt()
}

fn hint_contribution(count: u64) -> f64 {
    PARAMS.hint_weight * (count as f64).sqrt()
}

fn saturate(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Lowercases `hint` and turns runs of non-alphanumeric characters into single `_`;
/// `None` when nothing is left or the hint is too long.
fn normalize_hint(hint: &str) -> Option<String> {
    if hint.len() > MAX_HINT_LEN * 4 {
        return None;
    }
    let mut out = String::with_capacity(hint.len());
    for c in hint.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    (!out.is_empty() && out.chars().count() <= MAX_HINT_LEN).then_some(out)
}

/// Hint values (normalised) that name an archetype, besides the archetype names.
const HINT_ALIASES: &[(&str, Archetype)] = &[
    ("cx", Archetype::CxChatbot),
    ("support", Archetype::CxChatbot),
    ("customer", Archetype::CxChatbot),
    ("customer_service", Archetype::CxChatbot),
    ("customer_support", Archetype::CxChatbot),
    ("customer_care", Archetype::CxChatbot),
    ("customer_experience", Archetype::CxChatbot),
    ("helpdesk", Archetype::CxChatbot),
    ("help_desk", Archetype::CxChatbot),
    ("contact_center", Archetype::CxChatbot),
    ("call_center", Archetype::CxChatbot),
    ("ecommerce", Archetype::CxChatbot),
    ("e_commerce", Archetype::CxChatbot),
    ("retail", Archetype::CxChatbot),
    ("copilot", Archetype::InternalCopilot),
    ("internal", Archetype::InternalCopilot),
    ("employee", Archetype::InternalCopilot),
    ("employees", Archetype::InternalCopilot),
    ("workplace", Archetype::InternalCopilot),
    ("enterprise_assistant", Archetype::InternalCopilot),
    ("employee_assistant", Archetype::InternalCopilot),
    ("hr", Archetype::InternalCopilot),
    ("it_helpdesk", Archetype::InternalCopilot),
    ("it_support", Archetype::InternalCopilot),
    ("knowledge_management", Archetype::InternalCopilot),
    ("productivity", Archetype::InternalCopilot),
    ("tutor", Archetype::AiTutor),
    ("tutoring", Archetype::AiTutor),
    ("education", Archetype::AiTutor),
    ("educational", Archetype::AiTutor),
    ("edtech", Archetype::AiTutor),
    ("learning", Archetype::AiTutor),
    ("teaching", Archetype::AiTutor),
    ("school", Archetype::AiTutor),
    ("homework", Archetype::AiTutor),
    ("k12", Archetype::AiTutor),
    ("study", Archetype::AiTutor),
    ("health", Archetype::Healthcare),
    ("health_care", Archetype::Healthcare),
    ("medical", Archetype::Healthcare),
    ("medicine", Archetype::Healthcare),
    ("clinical", Archetype::Healthcare),
    ("patient", Archetype::Healthcare),
    ("telehealth", Archetype::Healthcare),
    ("telemedicine", Archetype::Healthcare),
    ("pharmacy", Archetype::Healthcare),
    ("nursing", Archetype::Healthcare),
    ("sales", Archetype::SalesAgent),
    ("presales", Archetype::SalesAgent),
    ("pre_sales", Archetype::SalesAgent),
    ("sdr", Archetype::SalesAgent),
    ("lead_generation", Archetype::SalesAgent),
    ("lead_gen", Archetype::SalesAgent),
    ("revenue", Archetype::SalesAgent),
    ("coding", Archetype::CodingAgent),
    ("code", Archetype::CodingAgent),
    ("code_assistant", Archetype::CodingAgent),
    ("developer", Archetype::CodingAgent),
    ("developers", Archetype::CodingAgent),
    ("devtools", Archetype::CodingAgent),
    ("developer_tools", Archetype::CodingAgent),
    ("programming", Archetype::CodingAgent),
    ("software", Archetype::CodingAgent),
    ("software_engineering", Archetype::CodingAgent),
    ("swe", Archetype::CodingAgent),
    ("content_moderation", Archetype::Moderation),
    ("trust_and_safety", Archetype::Moderation),
    ("trust_safety", Archetype::Moderation),
    ("t_s", Archetype::Moderation),
    ("safety", Archetype::Moderation),
    ("abuse", Archetype::Moderation),
    ("companionship", Archetype::Companion),
    ("social", Archetype::Companion),
    ("friend", Archetype::Companion),
    ("character", Archetype::Companion),
    ("roleplay", Archetype::Companion),
    ("role_play", Archetype::Companion),
    ("emotional_support", Archetype::Companion),
    ("virtual_friend", Archetype::Companion),
    ("other", Archetype::Custom),
    ("generic", Archetype::Custom),
    ("general", Archetype::Custom),
];

fn alias(word: &str) -> Option<Archetype> {
    Archetype::parse(word).or_else(|| {
        HINT_ALIASES
            .iter()
            .find(|(name, _)| *name == word)
            .map(|&(_, a)| a)
    })
}

/// The archetype a normalised hint names, if exactly one.
fn resolve_hint(norm: &str) -> Option<Archetype> {
    if let Some(a) = alias(norm) {
        return Some(a);
    }
    let mut found: Option<Archetype> = None;
    for word in norm.split('_') {
        match (alias(word), found) {
            (Some(a), None) => found = Some(a),
            (Some(a), Some(f)) if a != f => return None,
            _ => {}
        }
    }
    found
}

// ---- lexicon ------------------------------------------------------------------------

/// A term of the lexicon: its text as listed and its weight for each named archetype
/// (all zero for a mask).
#[derive(Debug)]
struct Term {
    text: String,
    weights: [f64; NAMED],
}

impl Term {
    fn is_mask(&self) -> bool {
        self.weights.iter().all(|&w| w == 0.0)
    }
}

/// An automaton pattern: the term it belongs to, and how many bytes of non-word
/// characters it starts and ends with (not subject to the word-boundary check).
#[derive(Debug)]
struct Pattern {
    term: usize,
    lead: usize,
    trail: usize,
}

/// The parsed lexicon.
#[derive(Debug)]
struct Lexicon {
    terms: Vec<Term>,
    patterns: Vec<Pattern>,
    /// The text of each pattern.
    texts: Vec<String>,
}

/// The automaton of [`ArchetypeDetector::add_turn`], built on first use (reading a
/// conversation searches for the terms with the marker phrases instead). `None` only
/// if it could not be built (it can for this lexicon; a test checks it), in which
/// case nothing matches.
static AUTOMATON: LazyLock<Option<phrases::PhraseAutomaton>> =
    LazyLock::new(|| phrases::automaton(&LEXICON.texts).ok());

static LEXICON: LazyLock<Lexicon> = LazyLock::new(|| parse_lexicon(LEXICON_TSV).0);

impl Lexicon {
    /// Whether a match of `pattern` at `start..end` lies on word boundaries, ignoring the
    /// pattern's leading and trailing punctuation.
    fn on_boundaries(&self, text: &Text, pattern: usize, start: usize, end: usize) -> bool {
        let p = &self.patterns[pattern];
        let (s, e) = (start + p.lead, end - p.trail);
        if s >= e {
            return true;
        }
        text.lower.is_char_boundary(s)
            && text.lower.is_char_boundary(e)
            && text.on_word_boundaries(s, e)
    }
}

/// The text of every term pattern (a term and its plural are two), in the order
/// [`ArchetypeDetector::add_matches`] numbers them.
pub fn term_patterns() -> impl Iterator<Item = &'static str> {
    LEXICON.texts.iter().map(String::as_str)
}

/// Parses the lexicon; bad lines are skipped and described in the returned errors.
fn parse_lexicon(src: &str) -> (Lexicon, Vec<String>) {
    let mut errors = Vec::new();
    let mut terms: Vec<Term> = Vec::new();
    let mut term_index: FxHashMap<String, usize> = FxHashMap::default();
    let mut patterns: Vec<Pattern> = Vec::new();
    let mut pattern_texts: Vec<String> = Vec::new();
    let mut pattern_index: FxHashMap<String, usize> = FxHashMap::default();

    for (n, line) in src.lines().enumerate() {
        let n = n + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [archetype, term, weight] = cols[..] else {
            errors.push(format!("line {n}: expected 3 tab-separated columns"));
            continue;
        };
        let slot = if archetype == "mask" {
            None
        } else {
            match Archetype::parse(archetype) {
                Some(a) if a.as_str() == archetype && a.index() < NAMED => Some(a.index()),
                _ => {
                    errors.push(format!("line {n}: unknown archetype {archetype:?}"));
                    continue;
                }
            }
        };
        let weight: f64 = match weight.parse() {
            Ok(w) if slot.is_none() && w == 0.0 => w,
            Ok(w) if slot.is_some() && w > 0.0 && w <= 3.0 => w,
            _ => {
                errors.push(format!("line {n}: bad weight {weight:?}"));
                continue;
            }
        };
        if term.is_empty()
            || term != term.trim()
            || term.contains("  ")
            || term.chars().any(|c| c.is_uppercase() || c == '\u{2019}')
        {
            errors.push(format!(
                "line {n}: term {term:?} is not lowercase, single-spaced"
            ));
            continue;
        }
        let (base, plural) = if let Some(b) = term.strip_suffix("(s)") {
            (b, Some("s"))
        } else if let Some(b) = term.strip_suffix("(es)") {
            (b, Some("es"))
        } else {
            (term, None)
        };
        if base.is_empty() || base.contains(['(', ')']) {
            errors.push(format!("line {n}: malformed term {term:?}"));
            continue;
        }

        let index = match term_index.get(term) {
            Some(&i) => i,
            None => {
                let forms: Vec<String> = std::iter::once(base.to_string())
                    .chain(plural.map(|suffix| format!("{base}{suffix}")))
                    .collect();
                if let Some((form, &other)) = forms
                    .iter()
                    .find_map(|f| pattern_index.get(f).map(|p| (f, p)))
                {
                    errors.push(format!(
                        "line {n}: {form:?} is already matched by {:?}; list the term in the same form",
                        terms[patterns[other].term].text
                    ));
                    continue;
                }
                let i = terms.len();
                terms.push(Term {
                    text: base.to_string(),
                    weights: [0.0; NAMED],
                });
                term_index.insert(term.to_string(), i);
                for form in forms {
                    pattern_index.insert(form.clone(), patterns.len());
                    patterns.push(Pattern {
                        term: i,
                        lead: form.len()
                            - form
                                .trim_start_matches(|c: char| !c.is_alphanumeric())
                                .len(),
                        trail: form.len()
                            - form.trim_end_matches(|c: char| !c.is_alphanumeric()).len(),
                    });
                    pattern_texts.push(form);
                }
                i
            }
        };
        let entry = &mut terms[index];
        match slot {
            None if entry.is_mask() => {}
            Some(k) if entry.weights[k] == 0.0 => entry.weights[k] = weight,
            _ => errors.push(format!(
                "line {n}: {term:?} listed twice for {archetype} or both as mask and term"
            )),
        }
    }

    (
        Lexicon {
            terms,
            patterns,
            texts: pattern_texts,
        },
        errors,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a conversation of (role, text) turns through a fresh detector.
    fn detect(turns: &[(Role, &str)]) -> ArchetypeDetector {
        let mut d = ArchetypeDetector::new();
        for &(role, text) in turns {
            d.add_turn(&Text::new(text), role);
        }
        d
    }

    fn human(text: &str) -> ArchetypeDetector {
        detect(&[(Role::Human, text)])
    }

    /// Term → count, for the terms of `archetype` that matched.
    fn term_counts(d: &ArchetypeDetector, archetype: Archetype) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        d.evidence_for(archetype, &mut out);
        out.into_iter()
            .filter(|e| e.signal == "term")
            .map(|e| (e.detail, e.count))
            .collect()
    }

    #[test]
    fn lexicon_parses_cleanly() {
        let (lex, errors) = parse_lexicon(LEXICON_TSV);
        assert_eq!(errors, Vec::<String>::new());
        assert!(phrases::automaton(&lex.texts).is_ok());
        for k in 0..NAMED {
            let n = lex.terms.iter().filter(|t| t.weights[k] > 0.0).count();
            assert!(
                (40..=90).contains(&n),
                "{} has {n} terms",
                Archetype::ALL[k].as_str()
            );
        }
    }

    #[test]
    fn lexicon_parser_reports_bad_lines() {
        let src = "cx_chatbot\torder(s)\t1\ncx_chatbot\torders\t1\nnope\tx\t1\nmask\ty\t1\n\
                   cx_chatbot\tBig\t1\ncx_chatbot\tz\nsales_agent\tz\t9\ncustom\tw\t1\n";
        let (lex, errors) = parse_lexicon(src);
        assert_eq!(errors.len(), 7, "{errors:?}");
        assert_eq!(lex.terms.len(), 1);
        assert_eq!(lex.patterns.len(), 2);
    }

    #[test]
    fn archetype_names_round_trip() {
        for a in Archetype::ALL {
            assert_eq!(Archetype::parse(a.as_str()), Some(a));
            assert_eq!(
                serde_json::to_value(a).ok(),
                Some(serde_json::Value::from(a.as_str()))
            );
        }
        assert_eq!(Archetype::parse(" AI-Tutor "), Some(Archetype::AiTutor));
        assert_eq!(
            Archetype::parse("coding agent"),
            Some(Archetype::CodingAgent)
        );
        assert_eq!(Archetype::parse("tutor"), None);
    }

    #[test]
    fn refund_chat_is_cx_chatbot() {
        let env = detect(&[
            (
                Role::Human,
                "Hi, I was charged twice for my order and I want a refund.",
            ),
            (
                Role::Ai,
                "Sorry about that! Could you share your order number? I'll check the billing.",
            ),
            (
                Role::Human,
                "Order number 48213. Also the delivery never arrived.",
            ),
            (
                Role::Ai,
                "I've issued a refund to your credit card; it takes 3-5 days.",
            ),
        ])
        .finish();
        assert_eq!(env.archetype, Archetype::CxChatbot);
        assert!(env.confidence > 0.5, "{env:?}");
        assert_eq!(env.evidence[0].signal, "term");
        assert!(
            env.evidence
                .iter()
                .any(|e| e.detail == "refund" && e.count == 2)
        );
        assert!(env.evidence.len() <= MAX_EVIDENCE_TERMS);
    }

    #[test]
    fn python_traceback_is_coding_agent() {
        let env = detect(&[
            (
                Role::Human,
                "My script crashes, here is the traceback:\nTraceback (most recent call last):\n  \
                 File \"main.py\", line 3, in <module>\nKeyError: 'name'",
            ),
            (
                Role::Ai,
                "The KeyError means the dict has no 'name' key. Use .get() in that function.",
            ),
            (
                Role::Human,
                "Thanks, now the unit tests pass. Should I open a pull request?",
            ),
        ])
        .finish();
        assert_eq!(env.archetype, Archetype::CodingAgent);
        assert!(env.confidence > 0.5, "{env:?}");
        assert_eq!(env.evidence[0].detail, "traceback");
    }

    #[test]
    fn fractions_lesson_is_ai_tutor() {
        let env = detect(&[
            (Role::Human, "Can you help with my math homework? I don't get fractions."),
            (
                Role::Ai,
                "Sure! In 3/4 the numerator is 3 and the denominator is 4. Let's do a practice problem.",
            ),
            (Role::Human, "ok. my teacher says we have a quiz on this friday"),
        ])
        .finish();
        assert_eq!(env.archetype, Archetype::AiTutor);
        assert!(env.confidence > 0.5, "{env:?}");
    }

    #[test]
    fn symptoms_are_healthcare() {
        let env = detect(&[
            (
                Role::Human,
                "I've had a fever and a headache for three days, and a sore throat.",
            ),
            (
                Role::Ai,
                "Those symptoms are common with a viral infection. Have you taken any medication?",
            ),
            (
                Role::Human,
                "Just ibuprofen, 400 mg. Should I book an appointment with my doctor?",
            ),
        ])
        .finish();
        assert_eq!(env.archetype, Archetype::Healthcare);
        assert!(env.confidence > 0.5, "{env:?}");
    }

    #[test]
    fn each_named_archetype_is_detected() {
        let cases = [
            (
                Archetype::InternalCopilot,
                "How many PTO days do I have left? And where is the expense report template on SharePoint? My manager asked me to file it in Jira.",
            ),
            (
                Archetype::SalesAgent,
                "What's your pricing for 50 seats? Is there a volume discount on the enterprise plan, and can we book a demo before the free trial ends?",
            ),
            (
                Archetype::Moderation,
                "My post was removed and my account suspended for a community guidelines violation. I want to appeal, it wasn't harassment.",
            ),
            (
                Archetype::Companion,
                "I feel so lonely tonight. Can I just talk to you for a bit? I had a rough day and I miss my best friend.",
            ),
        ];
        for (want, text) in cases {
            let env = human(text).finish();
            assert_eq!(env.archetype, want, "{text}: {env:?}");
        }
    }

    #[test]
    fn chit_chat_is_custom_with_low_confidence() {
        let env = detect(&[
            (Role::Human, "hi"),
            (Role::Ai, "Hello! How can I help you today?"),
            (Role::Human, "how are you"),
            (Role::Ai, "I'm doing well, thanks for asking!"),
            (Role::Human, "what's up"),
        ])
        .finish();
        assert_eq!(env.archetype, Archetype::Custom);
        assert!(env.confidence < 0.2, "{env:?}");
        assert_eq!(env.evidence[0].signal, "fallback");
        assert_eq!(env.evidence[0].detail, "insufficient_evidence");

        let empty = ArchetypeDetector::new().finish();
        assert_eq!(empty.archetype, Archetype::Custom);
        assert_eq!(empty.confidence, 0.0);
        assert_eq!(empty.evidence.len(), 1);
    }

    #[test]
    fn near_tie_is_custom() {
        // Two distinctive terms each for two archetypes, equal weights (2 + 2).
        let env = human("prescription diagnosis, stack trace compiler").finish();
        assert_eq!(env.archetype, Archetype::Custom, "{env:?}");
        assert!(env.confidence < 0.1);
        assert_eq!(env.evidence[0].detail, "near_tie:healthcare,coding_agent");
    }

    #[test]
    fn hint_overrides_weak_term_evidence() {
        let mut d = human("where is my order? I want a refund");
        assert_eq!(d.finish().archetype, Archetype::CxChatbot);
        d.add_hint("ai_tutor");
        let env = d.finish();
        assert_eq!(env.archetype, Archetype::AiTutor);
        assert!(env.confidence > 0.3, "{env:?}");
        assert_eq!(env.evidence[0].signal, "metadata_hint");
        assert_eq!(env.evidence[0].detail, "ai_tutor");
        assert_eq!(env.evidence[0].count, 1);
    }

    #[test]
    fn hints_are_normalised_and_resolved() {
        let cases = [
            ("tutor", Some(Archetype::AiTutor)),
            ("Customer Support", Some(Archetype::CxChatbot)),
            ("helpdesk", Some(Archetype::CxChatbot)),
            ("IT-Helpdesk", Some(Archetype::InternalCopilot)),
            ("k12-education", Some(Archetype::AiTutor)),
            ("Coding", Some(Archetype::CodingAgent)),
            ("trust & safety", Some(Archetype::Moderation)),
            ("custom", Some(Archetype::Custom)),
            ("health insurance support", None),
            ("banana", None),
            ("", None),
        ];
        for (hint, want) in cases {
            let got = normalize_hint(hint).and_then(|n| resolve_hint(&n));
            assert_eq!(got, want, "{hint:?}");
        }
        let mut d = ArchetypeDetector::new();
        d.add_hint("banana");
        d.add_hint(&"x".repeat(500));
        assert!(d.hints.is_empty());
        d.add_hint("Tutor");
        d.add_hint(" tutor ");
        assert_eq!(d.hints.get("tutor"), Some(&(Archetype::AiTutor, 2)));
    }

    #[test]
    fn merge_is_order_independent_and_exact() {
        let a = {
            let mut d = human("I need a refund for my order, the delivery was late");
            d.add_hint("support");
            d
        };
        let b = detect(&[
            (Role::Human, "python traceback: KeyError in my function"),
            (
                Role::Ai,
                "That error: means the key is missing; check the repo.",
            ),
        ]);
        let c = ArchetypeDetector::new();
        let mut ab = a.clone();
        ab.merge(&b);
        ab.merge(&c);
        let mut ba = c.clone();
        ba.merge(&b);
        ba.merge(&a);
        assert_eq!(ab.finish(), ba.finish());
        assert_eq!(ab.hits, ba.hits);
        assert_eq!(ab.hints, ba.hints);

        // Same as one detector that saw everything.
        let mut all = detect(&[
            (
                Role::Human,
                "I need a refund for my order, the delivery was late",
            ),
            (Role::Human, "python traceback: KeyError in my function"),
            (
                Role::Ai,
                "That error: means the key is missing; check the repo.",
            ),
        ]);
        all.add_hint("support");
        assert_eq!(all.finish(), ab.finish());
    }

    #[test]
    fn whole_words_only() {
        let d = human("the border of the trust fund; a huge planet; spain");
        assert_eq!(d.finish().evidence.len(), 1, "{:?}", d.finish());
        assert!(d.hits.iter().all(|h| h == &[0, 0]));

        // "bug" is not counted inside "debugger"; "debugger" is a term of its own.
        let d = human("the debugger shows two bugs");
        assert_eq!(
            term_counts(&d, Archetype::CodingAgent),
            [("debugger".to_string(), 1), ("bug".to_string(), 1)]
        );
        // Plurals listed with "(s)" count as the singular term.
        let d = human("orders and one order");
        assert_eq!(
            term_counts(&d, Archetype::CxChatbot),
            [("order".to_string(), 2)]
        );
    }

    #[test]
    fn longest_term_wins_and_shorter_terms_are_recovered() {
        // "tracking number" counts once, not also as "tracking".
        let d = human("my tracking number");
        assert_eq!(
            term_counts(&d, Archetype::CxChatbot),
            [("tracking number".to_string(), 1)]
        );
        // "pip install" runs into "pip installer"; the shorter "pip" is counted instead.
        let d = human("the pip installer");
        assert_eq!(
            term_counts(&d, Archetype::CodingAgent),
            [("pip".to_string(), 1)]
        );
    }

    #[test]
    fn masks_consume_generic_phrases() {
        let d = human("in order to help, feel free to ask; I'd love to");
        assert!(d.hits.iter().all(|h| h == &[0, 0]), "{d:?}");
        let d = human("the order of operations");
        assert_eq!(
            term_counts(&d, Archetype::AiTutor),
            [("order of operations".to_string(), 1)]
        );
        assert!(term_counts(&d, Archetype::CxChatbot).is_empty());
    }

    #[test]
    fn punctuation_in_terms_is_literal() {
        let d = human("error: cannot open main.py (C++ build)");
        let counts = term_counts(&d, Archetype::CodingAgent);
        for term in ["error:", ".py", "c++"] {
            assert!(counts.iter().any(|(t, _)| t == term), "{term}: {counts:?}");
        }
        // "error:" needs the colon; ".py" must end the word.
        let d = human("an error occurred in main.pyc");
        let counts = term_counts(&d, Archetype::CodingAgent);
        assert_eq!(counts, [("error".to_string(), 1)]);
    }

    #[test]
    fn ai_text_counts_less() {
        let h = detect(&[(Role::Human, "refund refund refund refund refund")]).finish();
        let a = detect(&[(Role::Ai, "refund refund refund refund refund")]).finish();
        assert_eq!(h.archetype, Archetype::CxChatbot);
        assert_eq!(a.archetype, Archetype::CxChatbot);
        assert!(a.evidence[0].contribution < h.evidence[0].contribution);
        assert!(a.confidence < h.confidence);
        // 2 · √5 and 2 · √(5 · 0.6).
        assert!((h.evidence[0].contribution - 2.0 * 5f64.sqrt()).abs() < 1e-12);
        assert!((a.evidence[0].contribution - 2.0 * 3f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn evidence_is_capped_and_sorted() {
        let env =
            human("refund order delivery shipping tracking number invoice billing coupon warranty")
                .finish();
        assert_eq!(env.archetype, Archetype::CxChatbot);
        assert_eq!(env.evidence.len(), MAX_EVIDENCE_TERMS);
        for pair in env.evidence.windows(2) {
            assert!(
                pair[0].contribution > pair[1].contribution
                    || pair[0].contribution == pair[1].contribution
                        && pair[0].detail < pair[1].detail
            );
        }
        assert!(env.confidence > 0.0 && env.confidence <= 1.0);
    }
}
