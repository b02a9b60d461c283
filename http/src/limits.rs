//! Rate-limit windows (DESIGN.md §7): fixed UTC windows per key, checked and counted
//! together so that a refused request spends no quota.
//!
//! This module decides; the store counts. [`windows_for`] names the windows a request
//! falls in, the store reads their counts and calls [`decide`] inside one transaction.

use serde::{Deserialize, Serialize};

/// Seconds in an hour window.
const HOUR: i64 = 3600;
/// Seconds in a day window.
const DAY: i64 = 86_400;

/// Which counter a window is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowKind {
    /// Every request, per UTC hour.
    Hour,
    /// Every request, per UTC day.
    Day,
    /// Drift sessions started, per UTC hour.
    DriftHour,
}

impl WindowKind {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            WindowKind::Hour => "hour",
            WindowKind::Day => "day",
            WindowKind::DriftHour => "drift_hour",
        }
    }
}

/// A key's limits (its plan).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Requests per UTC hour.
    pub per_hour: u32,
    /// Requests per UTC day.
    pub per_day: u32,
    /// Drift sessions per UTC hour.
    pub drift_per_hour: u32,
}

impl Default for Plan {
    /// SPEC.md §8: 1000/hour, 10000/day, 10 drift sessions/hour.
    fn default() -> Self {
        Plan {
            per_hour: 1000,
            per_day: 10_000,
            drift_per_hour: 10,
        }
    }
}

/// One window a request falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Which counter.
    pub kind: WindowKind,
    /// Requests allowed in the window.
    pub limit: u32,
    /// Start of the window, unix seconds.
    pub start: i64,
    /// End of the window (its reset), unix seconds.
    pub reset: i64,
}

/// The windows a request at `now` (unix seconds) counts against.
pub fn windows_for(plan: &Plan, now: i64, is_drift: bool) -> Vec<Window> {
    let window = |kind, limit, len: i64| {
        let start = now.div_euclid(len) * len;
        Window {
            kind,
            limit,
            start,
            reset: start + len,
        }
    };
    let mut out = vec![
        window(WindowKind::Hour, plan.per_hour, HOUR),
        window(WindowKind::Day, plan.per_day, DAY),
    ];
    if is_drift {
        out.push(window(WindowKind::DriftHour, plan.drift_per_hour, HOUR));
    }
    out
}

/// What the headers of a response report: the most constrained window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// `X-RateLimit-Limit`.
    pub limit: u32,
    /// `X-RateLimit-Remaining`.
    pub remaining: u32,
    /// `X-RateLimit-Reset`, unix seconds.
    pub reset: i64,
}

/// The outcome of a rate-limit check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Every window had room; each was counted. `quota` is after counting.
    Allowed(Quota),
    /// A window was full; nothing was counted. `quota` is the window that refused
    /// (the one that frees up last, when several are full).
    Refused(Quota),
}

impl Decision {
    /// The quota to report in headers.
    pub fn quota(&self) -> Quota {
        match self {
            Decision::Allowed(q) | Decision::Refused(q) => *q,
        }
    }
}

/// Decides from the current counts (`used[i]` for `windows[i]`, already reset to 0 for
/// a window that started after the stored one). When allowed, the caller adds one to
/// every window.
pub fn decide(windows: &[Window], used: &[u32]) -> Decision {
    debug_assert_eq!(windows.len(), used.len());
    let full = windows
        .iter()
        .zip(used)
        .filter(|(w, u)| **u >= w.limit)
        .max_by_key(|(w, _)| w.reset);
    if let Some((w, _)) = full {
        return Decision::Refused(Quota {
            limit: w.limit,
            remaining: 0,
            reset: w.reset,
        });
    }
    Decision::Allowed(most_constrained(windows, used, 1))
}

/// The window with the fewest requests left after `extra` more; ties go to the one that
/// resets first.
pub fn most_constrained(windows: &[Window], used: &[u32], extra: u32) -> Quota {
    tightest(windows.iter().zip(used).map(|(w, u)| Quota {
        limit: w.limit,
        remaining: w.limit.saturating_sub(u.saturating_add(extra)),
        reset: w.reset,
    }))
}

/// Of several quotas, the one with the fewest requests left; ties go to the one that
/// resets first (all zero when there is none).
pub fn tightest(quotas: impl IntoIterator<Item = Quota>) -> Quota {
    quotas
        .into_iter()
        .min_by_key(|q| (q.remaining, q.reset))
        .unwrap_or(Quota {
            limit: 0,
            remaining: 0,
            reset: 0,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_000_000; // 2026-11-18T11:06:40Z

    #[test]
    fn windows_are_fixed_utc_hours_and_days() {
        let w = windows_for(&Plan::default(), NOW, true);
        assert_eq!(w.len(), 3);
        assert_eq!(w[0].start, 1_794_999_600); // 11:00:00
        assert_eq!(w[0].reset, 1_795_003_200); // 12:00:00
        assert_eq!(w[1].start, 1_794_960_000); // 00:00:00
        assert_eq!(w[1].reset, 1_795_046_400);
        assert_eq!(
            (w[2].kind, w[2].limit, w[2].reset),
            (WindowKind::DriftHour, 10, w[0].reset)
        );
        assert_eq!(windows_for(&Plan::default(), NOW, false).len(), 2);
    }

    #[test]
    fn last_allowed_request_reports_zero_remaining() {
        let w = windows_for(&Plan::default(), NOW, false);
        let d = decide(&w, &[999, 999]);
        assert_eq!(
            d,
            Decision::Allowed(Quota {
                limit: 1000,
                remaining: 0,
                reset: w[0].reset
            })
        );
        assert_eq!(
            decide(&w, &[1000, 1000]),
            Decision::Refused(Quota {
                limit: 1000,
                remaining: 0,
                reset: w[0].reset
            })
        );
    }

    #[test]
    fn the_day_window_binds_when_it_is_full_and_the_hour_is_not() {
        let w = windows_for(&Plan::default(), NOW, false);
        assert_eq!(
            decide(&w, &[3, 10_000]),
            Decision::Refused(Quota {
                limit: 10_000,
                remaining: 0,
                reset: w[1].reset
            })
        );
        // Both full: wait for the later reset.
        assert_eq!(decide(&w, &[1000, 10_000]).quota().reset, w[1].reset);
        // Day nearly full: it is the most constrained window in the headers.
        assert_eq!(decide(&w, &[10, 9_998]).quota().limit, 10_000);
        assert_eq!(decide(&w, &[10, 9_998]).quota().remaining, 1);
    }
}
