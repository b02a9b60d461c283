//! Deploys in a deployment's history: where the release changed, and the outcome-shift
//! test of a deploy once its post-deploy window has settled (DESIGN.md §6).
//!
//! The window rule: the before side is the up to [`DEPLOY_BASELINE`] conversations just
//! before the deploy (after the previous deploy); the after side is the conversations
//! from the deploy on (before the next one). The window settles when the after side
//! holds as many conversations as the before side, and at least
//! [`outcome::MIN_CONVERSATIONS`]; the test then runs once, on exactly that many
//! after-conversations, so adding conversations later cannot change its answer.

use chrono::{DateTime, Utc};

use super::ConversationPoint;
use crate::drift::outcome::{self, OutcomeShift};

/// Conversations immediately before a deploy that form its baseline, at most.
pub const DEPLOY_BASELINE: usize = 200;

/// A change of release between consecutive conversations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseChange {
    /// The release before.
    pub from: String,
    /// The release after.
    pub to: String,
    /// Start of the first conversation on `to`.
    pub at: DateTime<Utc>,
}

/// Where the release changed in `history` (in time order). A conversation without a
/// release keeps the previous one; the first release seen is not a change.
pub fn release_changes(history: &[ConversationPoint]) -> Vec<ReleaseChange> {
    let mut out = Vec::new();
    let mut current: Option<&str> = None;
    for p in history {
        let Some(release) = p.release.as_deref() else {
            continue;
        };
        if let Some(previous) = current
            && previous != release
        {
            out.push(ReleaseChange {
                from: previous.to_owned(),
                to: release.to_owned(),
                at: p.started_at,
            });
        }
        current = Some(release);
    }
    out
}

/// The outcome-shift test of the deploy at `at`, once its window has settled (see the
/// module documentation); None before. `deploys` are the times of every deploy of the
/// deployment (they bound the window); `history` is in time order.
pub fn settled_shift(
    at: DateTime<Utc>,
    deploys: &[DateTime<Utc>],
    history: &[ConversationPoint],
) -> Option<OutcomeShift> {
    let previous = deploys.iter().filter(|&&t| t < at).max().copied();
    let next = deploys.iter().filter(|&&t| t > at).min().copied();
    let scored = history.iter().filter(|p| p.human_turns > 0);
    let before: Vec<&ConversationPoint> = scored
        .clone()
        .filter(|p| p.started_at < at && previous.is_none_or(|t| p.started_at >= t))
        .collect();
    let before = &before[before.len().saturating_sub(DEPLOY_BASELINE)..];
    let after: Vec<&ConversationPoint> = scored
        .filter(|p| p.started_at >= at && next.is_none_or(|t| p.started_at < t))
        .collect();
    let target = before.len().max(outcome::MIN_CONVERSATIONS);
    if after.len() < target {
        return None;
    }
    let after = &after[..target];
    let resolved = |v: &[&ConversationPoint]| v.iter().filter(|p| p.resolved).count();
    Some(outcome::counts(
        resolved(before),
        before.len(),
        resolved(after),
        after.len(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::layer_z::ByDimension;

    fn point(id: &str, minute: i64, resolved: bool, release: Option<&str>) -> ConversationPoint {
        ConversationPoint {
            conversation_id: id.to_owned(),
            started_at: DateTime::from_timestamp(1_795_000_000 + 60 * minute, 0)
                .unwrap_or_default(),
            human_turns: 2,
            resolved,
            abandoned: false,
            release: release.map(str::to_owned),
            scores: ByDimension::from_fn(|_| 0.3),
        }
    }

    #[test]
    fn release_changes_skip_the_first_release_and_conversations_without_one() {
        let history = vec![
            point("a", 0, true, Some("v1")),
            point("b", 1, true, None),
            point("c", 2, true, Some("v2")),
            point("d", 3, true, Some("v2")),
            point("e", 4, true, Some("v1")),
        ];
        let changes = release_changes(&history);
        let seen: Vec<_> = changes
            .iter()
            .map(|c| (c.from.as_str(), c.to.as_str(), c.at))
            .collect();
        assert_eq!(
            seen,
            vec![
                ("v1", "v2", history[2].started_at),
                ("v2", "v1", history[4].started_at)
            ]
        );
    }

    #[test]
    fn a_deploy_settles_when_the_after_side_matches_the_before_side() {
        let at = point("x", 40, true, None).started_at;
        // 40 before (60% resolved), then after: 39 is not enough, 40 settles.
        let mut history: Vec<ConversationPoint> = (0..40)
            .map(|i| point(&format!("b{i}"), i, i % 5 < 3, None))
            .collect();
        history.extend((0..39).map(|i| point(&format!("a{i}"), 40 + i, true, None)));
        assert_eq!(settled_shift(at, &[at], &history), None);
        history.push(point("a39", 79, true, None));
        history.push(point("a40", 80, false, None));
        let s = settled_shift(at, &[at], &history);
        let s = s.as_ref();
        assert_eq!(s.map(|s| (s.before_n, s.before_resolved)), Some((40, 24)));
        assert_eq!(s.map(|s| (s.after_n, s.after_resolved)), Some((40, 40)));
        assert_eq!(s.map(|s| s.outcome_shift_detected), Some(true));
    }

    #[test]
    fn the_previous_and_next_deploys_bound_the_window() {
        let t = |m| point("t", m, true, None).started_at;
        // Deploys at 10, 20, 60: the deploy at 20 sees 10 before (10..20), and its
        // after side stops at 60.
        let history: Vec<ConversationPoint> = (0..100)
            .map(|i| point(&format!("c{i:03}"), i, true, None))
            .collect();
        let s = settled_shift(t(20), &[t(10), t(20), t(60)], &history);
        assert_eq!(s.map(|s| (s.before_n, s.after_n)), Some((10, 30)));
        // With the next deploy at 45, only 25 conversations follow: never settles.
        assert_eq!(settled_shift(t(20), &[t(10), t(20), t(45)], &history), None);
    }
}
