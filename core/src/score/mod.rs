//! Scoring: signals combined into the six Layer Z dimensions per turn, conversation and
//! request, plus environment, findings and the session result (DESIGN.md §3–§5).

pub mod aggregate;
pub mod archetype;
pub mod context;
pub mod conversation;
pub mod dependency;
pub mod findings;
pub mod inputs;
pub mod layer_z;
pub mod parts;
pub mod rows;
pub mod turn;

use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;

use crate::assembly::{Conversation, assemble};
use crate::features::language::LanguageCounts;
use crate::schema::{IngestRequest, Pipeline};

pub use archetype::{Archetype, Environment};
pub use conversation::{ConversationResult, TurnResult};
pub use findings::Findings;
pub use layer_z::{Band, Dimension, DimensionScore, Direction, Evidence, LayerZ, TrustMode};

/// Version of the scoring rules; changes whenever any score can change.
pub const SCORER_VERSION: &str = "2.3.0";

/// Conversations scored between two progress reports.
const PROGRESS_CHUNK: usize = 2048;

/// The pipeline a request was scored with, after `auto` is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ScoredPipeline {
    /// Multi-turn human↔AI conversations.
    Support,
    /// Standalone human texts.
    Reviews,
}

/// How the pipeline was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PipelineSource {
    /// The request named it.
    Requested,
    /// `auto`: chosen from the shape of the events.
    Detected,
}

/// `full_output` of a session: `{pipeline, intelligence}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = FullOutput))]
pub struct SessionIntelligence {
    /// The pipeline used.
    pub pipeline: ScoredPipeline,
    /// Everything Undertone read.
    pub intelligence: Intelligence,
}

/// The structured result of scoring one request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Intelligence {
    /// Version of the scoring rules.
    pub scorer_version: &'static str,
    /// The deployment.
    pub deployment_id: String,
    /// How the pipeline was chosen.
    pub pipeline_source: PipelineSource,
    /// Detected deployment archetype.
    pub archetype: Archetype,
    /// The archetype with its confidence and evidence.
    pub environment: Environment,
    /// Events in the request.
    pub event_count: usize,
    /// Conversations found.
    pub conversation_count: usize,
    /// Human turns scored.
    pub human_turn_count: usize,
    /// Request-level dimensions (each conversation counts once).
    pub layer_z: LayerZ,
    /// Every conversation, in assembly order.
    pub conversations: Vec<ConversationResult>,
    /// Conversations with no human turn (kept, not scored).
    pub without_human_turns: Vec<String>,
    /// The most important finding.
    pub key_finding: String,
    /// Whether `prediction` states a measurable claim.
    pub falsifiable: bool,
    /// A claim a later drift comparison can confirm or refute.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub prediction: Option<String>,
    /// The first recommendation.
    pub recommendation: String,
    /// 3–5 sentences for a product manager.
    pub plain_summary: String,
    /// Actions tied to evidence.
    pub plain_recommendations: Vec<String>,
}

/// The condensed view (SPEC.md §2.3): archetype, request-level Layer Z, key finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = CondensedOutput))]
pub struct Condensed<'a> {
    /// The session, when scored by the service; `null` when scored locally.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub session_id: Option<&'a str>,
    /// Detected deployment archetype.
    pub archetype: Archetype,
    /// Request-level dimensions.
    pub layer_z: &'a LayerZ,
    /// The most important finding.
    pub key_finding: &'a str,
    /// Whether the finding states a measurable prediction.
    pub falsifiable: bool,
    /// The first recommendation.
    pub recommendation: &'a str,
}

impl SessionIntelligence {
    /// The condensed view of this result.
    pub fn condensed<'a>(&'a self, session_id: Option<&'a str>) -> Condensed<'a> {
        let i = &self.intelligence;
        Condensed {
            session_id,
            archetype: i.archetype,
            layer_z: &i.layer_z,
            key_finding: &i.key_finding,
            falsifiable: i.falsifiable,
            recommendation: &i.recommendation,
        }
    }
}

/// Scores one conversation and adds its texts and metadata hints to `d`.
fn score_one(
    c: &Conversation<'_>,
    pipeline: ScoredPipeline,
    d: &mut archetype::ArchetypeDetector,
) -> conversation::Draft {
    let draft = match pipeline {
        ScoredPipeline::Support => conversation::score_conversation(c, d),
        ScoredPipeline::Reviews => conversation::score_standalone(c, d),
    };
    for t in &c.turns {
        if let Some(meta) = &t.event.metadata {
            for key in ["archetype", "environment_type", "domain"] {
                if let Some(Value::String(h)) = meta.get(key) {
                    d.add_hint(h);
                }
            }
        }
    }
    draft
}

/// Scores a validated request. Deterministic: the same request gives the same result,
/// whatever the number of threads.
pub fn score(request: &IngestRequest) -> SessionIntelligence {
    score_with_progress(request, |_, _| {})
}

/// [`score`], calling `progress(done, total)` (in conversations) as work completes.
pub fn score_with_progress(
    request: &IngestRequest,
    progress: impl Fn(usize, usize) + Sync,
) -> SessionIntelligence {
    match score_until(request, progress, || false) {
        Ok(result) => result,
        // `stop` never asks to stop.
        Err(Stopped { .. }) => unreachable!("scoring stopped without being asked to"),
    }
}

/// Scoring was stopped before it finished ([`score_until`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("scoring stopped after {done} of {total} conversations")]
pub struct Stopped {
    /// Conversations scored when it stopped.
    pub done: usize,
    /// Conversations in the request.
    pub total: usize,
}

/// [`score_with_progress`] that gives up when `stop()` returns true: it is asked
/// before each conversation (so a service can hold a job to a time budget), and the
/// conversations left are not scored.
pub fn score_until(
    request: &IngestRequest,
    progress: impl Fn(usize, usize) + Sync,
    stop: impl Fn() -> bool + Sync,
) -> Result<SessionIntelligence, Stopped> {
    let assembly = assemble(&request.events, Some(&request.deployment_id));
    let (pipeline, pipeline_source) = match request.pipeline {
        Pipeline::Support => (ScoredPipeline::Support, PipelineSource::Requested),
        Pipeline::Reviews => (ScoredPipeline::Reviews, PipelineSource::Requested),
        Pipeline::Auto => {
            let has_ai = assembly.conversations.iter().any(|c| c.ai_turn_count > 0);
            let pipeline = if has_ai {
                ScoredPipeline::Support
            } else {
                ScoredPipeline::Reviews
            };
            (pipeline, PipelineSource::Detected)
        }
    };
    let total = assembly.conversations.len();
    let mut drafts = Vec::with_capacity(total);
    let mut detector = archetype::ArchetypeDetector::new();
    let mut expected = 0;
    for chunk in assembly.conversations.chunks(PROGRESS_CHUNK) {
        // One detector per rayon split, not per conversation: term counts are sums, so
        // the merged detector is the same however the work was split.
        let (scored, d) = chunk
            .par_iter()
            .fold(
                || (Vec::new(), archetype::ArchetypeDetector::new()),
                |(mut out, mut d), c| {
                    if !stop() {
                        out.push(score_one(c, pipeline, &mut d));
                    }
                    (out, d)
                },
            )
            .reduce(
                || (Vec::new(), archetype::ArchetypeDetector::new()),
                |(mut a, mut da), (b, db)| {
                    a.extend(b);
                    da.merge(&db);
                    (a, da)
                },
            );
        drafts.extend(scored);
        detector.merge(&d);
        expected += chunk.len();
        if drafts.len() < expected {
            return Err(Stopped {
                done: drafts.len(),
                total,
            });
        }
        progress(drafts.len(), total);
    }
    dependency::apply(&mut drafts);
    conversation::apply_deployment_context(&mut drafts, pipeline == ScoredPipeline::Reviews);
    // Human turns written mostly outside the Latin alphabet or in another language than
    // English: the findings say what the scores of such turns rest on.
    let mut languages = LanguageCounts::default();
    for d in &drafts {
        languages += d.languages;
    }
    let conversations: Vec<ConversationResult> = drafts.into_iter().map(|d| d.result).collect();
    let layer_z = aggregate::aggregate(&conversations);
    let environment = detector.finish();
    let f = findings::findings(
        pipeline == ScoredPipeline::Reviews,
        &request.deployment_id,
        &environment,
        &layer_z,
        &conversations,
        languages,
    );
    Ok(SessionIntelligence {
        pipeline,
        intelligence: Intelligence {
            scorer_version: SCORER_VERSION,
            deployment_id: request.deployment_id.clone(),
            pipeline_source,
            archetype: environment.archetype,
            environment,
            event_count: assembly.event_count,
            conversation_count: assembly.conversation_count,
            human_turn_count: assembly.human_turn_count,
            layer_z,
            conversations,
            without_human_turns: assembly.without_human_turns,
            key_finding: f.key_finding,
            falsifiable: f.falsifiable,
            prediction: f.prediction,
            recommendation: f.recommendation,
            plain_summary: f.plain_summary,
            plain_recommendations: f.plain_recommendations,
        },
    })
}
