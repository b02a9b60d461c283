//! The retry schedule: when each attempt of a delivery is made.
//!
//! The schedule lists one delay per attempt, in seconds after the previous attempt
//! failed (the first is counted from when the event was queued): by default
//! `0,5,300,1800,7200` — at once, then after 5 s, 5 min, 30 min and 2 h; five
//! attempts in all. Each delay gets ±20% jitter. A `Retry-After` the endpoint sends
//! is honoured within `[delay, 2 × delay]`.

use std::str::FromStr;
use std::time::Duration;

use rand::Rng;

/// The default schedule, in seconds.
pub const DEFAULT: &str = "0,5,300,1800,7200";
/// Largest share by which a delay is moved, either way.
pub const JITTER: f64 = 0.2;
/// Most attempts a schedule may list.
pub const MAX_ATTEMPTS: usize = 20;

/// Delays between attempts; its length is the number of attempts.
#[derive(Debug, Clone, PartialEq)]
pub struct RetrySchedule(Vec<Duration>);

/// Why a schedule was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid webhook retry schedule `{given}`: {reason} (expected 1 to {MAX_ATTEMPTS} comma-separated delays in seconds, like {DEFAULT})"
)]
pub struct ScheduleError {
    given: String,
    reason: String,
}

impl FromStr for RetrySchedule {
    type Err = ScheduleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |reason: String| ScheduleError {
            given: s.to_owned(),
            reason,
        };
        let mut delays = Vec::new();
        for part in s.split(',') {
            let part = part.trim();
            let secs: f64 = part
                .parse()
                .map_err(|_| fail(format!("`{part}` is not a number of seconds")))?;
            if !secs.is_finite() || !(0.0..=86_400.0 * 7.0).contains(&secs) {
                return Err(fail(format!(
                    "`{part}` must be from 0 to 604800 seconds (a week)"
                )));
            }
            delays.push(Duration::from_secs_f64(secs));
        }
        if delays.len() > MAX_ATTEMPTS {
            return Err(fail(format!("{} delays is too many", delays.len())));
        }
        Ok(RetrySchedule(delays))
    }
}

impl Default for RetrySchedule {
    fn default() -> Self {
        RetrySchedule(
            [0, 5, 300, 1800, 7200]
                .into_iter()
                .map(Duration::from_secs)
                .collect(),
        )
    }
}

impl RetrySchedule {
    /// Attempts in all.
    pub fn attempts(&self) -> u32 {
        u32::try_from(self.0.len()).unwrap_or(u32::MAX)
    }

    /// The nominal delay before attempt `n` (1-based), if there is such an attempt.
    pub fn delay(&self, attempt: u32) -> Option<Duration> {
        let i = usize::try_from(attempt).ok()?.checked_sub(1)?;
        self.0.get(i).copied()
    }

    /// The wait before attempt `attempt` (1-based) after the previous one failed:
    /// the scheduled delay with ±20% jitter drawn from `jitter` (a number in [0, 1)),
    /// then `retry_after`, when the endpoint sent one, clamped to [that, 2 × that].
    /// None when there is no such attempt.
    pub fn wait(
        &self,
        attempt: u32,
        jitter: f64,
        retry_after: Option<Duration>,
    ) -> Option<Duration> {
        let nominal = self.delay(attempt)?;
        let factor = 1.0 - JITTER + 2.0 * JITTER * jitter.clamp(0.0, 1.0);
        let jittered = nominal.mul_f64(factor);
        Some(match retry_after {
            Some(asked) => asked.clamp(jittered, jittered * 2),
            None => jittered,
        })
    }

    /// [`wait`](Self::wait) with fresh randomness.
    pub fn wait_random(&self, attempt: u32, retry_after: Option<Duration>) -> Option<Duration> {
        self.wait(attempt, rand::rng().random::<f64>(), retry_after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn the_default_is_five_attempts_at_once_then_5s_5min_30min_2h() {
        let s = RetrySchedule::default();
        assert_eq!(s, DEFAULT.parse().unwrap_or_else(|_| RetrySchedule(vec![])));
        assert_eq!(s.attempts(), 5);
        assert_eq!(s.delay(1), Some(secs(0.0)));
        assert_eq!(s.delay(2), Some(secs(5.0)));
        assert_eq!(s.delay(5), Some(secs(7200.0)));
        assert_eq!(s.delay(6), None);
        assert_eq!(s.delay(0), None);
    }

    #[test]
    fn jitter_stays_within_twenty_percent() {
        let s = RetrySchedule::default();
        assert_eq!(s.wait(3, 0.0, None), Some(secs(240.0)));
        assert_eq!(s.wait(3, 0.5, None), Some(secs(300.0)));
        let top = s.wait(3, 1.0, None).map(|d| d.as_secs_f64());
        assert!(top.is_some_and(|t| (t - 360.0).abs() < 1e-6), "{top:?}");
        assert_eq!(s.wait(1, 0.9, None), Some(secs(0.0)));
    }

    #[test]
    fn retry_after_is_honoured_between_the_delay_and_twice_it() {
        let s = RetrySchedule::default();
        // Delay 5 s (no jitter at 0.5): asked 7 s → 7 s; asked 1 h → 10 s; asked 1 s → 5 s.
        assert_eq!(s.wait(2, 0.5, Some(secs(7.0))), Some(secs(7.0)));
        assert_eq!(s.wait(2, 0.5, Some(secs(3600.0))), Some(secs(10.0)));
        assert_eq!(s.wait(2, 0.5, Some(secs(1.0))), Some(secs(5.0)));
    }

    #[test]
    fn schedules_parse_fractions_and_refuse_nonsense() {
        let s: Result<RetrySchedule, _> = "0, 0.05,0.1".parse();
        assert_eq!(s.map(|s| s.attempts()), Ok(3));
        for bad in ["", "1,,2", "-1", "abc", "1e9", "NaN"] {
            let e = bad.parse::<RetrySchedule>();
            assert!(e.is_err(), "{bad} parsed");
        }
        let e = "x".parse::<RetrySchedule>().err().map(|e| e.to_string());
        assert!(e.is_some_and(|m| m.contains("`x` is not a number")));
    }
}
