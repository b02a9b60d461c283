//! Statistics for drift: rank tests, effect sizes, shift estimates, multiple-testing
//! adjustment and proportion tests (DESIGN.md §6). Pure functions, no I/O.
//!
//! | Question | Function |
//! |---|---|
//! | Did a score's distribution move between two periods? | [`mann_whitney_u`] (or [`mann_whitney_u_with`] to force the method; [`exact_with_ties`] where ties leave the normal approximation unreliable) |
//! | How large is the move, scale-free? | [`rank_biserial`], [`cliffs_delta`] (the same number) |
//! | How large is the move, in score units, with a confidence interval? | [`hodges_lehmann`] |
//! | Many tests at once: which survive? | [`holm`] (family-wise error), [`benjamini_hochberg`] (false discovery rate) |
//! | Did a rate (share of conversations with a finding) change? | [`two_proportion_z`] |
//! | Middle of one sample | [`median`] |
//!
//! # Errors
//!
//! Nothing here panics. A function that cannot give a meaningful number returns `None`
//! (an empty sample, a `NaN`, an impossible count — each function says which); the
//! multiple-testing adjustments return one output per input and carry a `NaN` p-value
//! through as `NaN`. Infinite values are ordinary, extreme values for the rank-based
//! functions; [`hodges_lehmann`] rejects them because `∞ − ∞` has no value.
//!
//! # Agreement with reference implementations
//!
//! [`mann_whitney_u`] mirrors `scipy.stats.mannwhitneyu(x, y, alternative="two-sided",
//! method="auto", use_continuity=True)` of SciPy 1.17, the multiple-testing
//! adjustments mirror `statsmodels.stats.multitest.multipletests` (methods `holm` and
//! `fdr_bh`), and [`two_proportion_z`] mirrors `statsmodels.stats.proportion.
//! proportions_ztest` with its default pooled variance. `tests/reference/` at the
//! repository root holds the script that produced the reference vectors and the vectors
//! themselves; the integration tests check agreement to 1e-9 (relative).

mod effect;
mod exact;
mod mann_whitney;
mod multitest;
mod normal;
mod proportion;
mod rank;
mod shift;
mod ties;

pub use effect::{cliffs_delta, rank_biserial};
pub use mann_whitney::{MannWhitney, Method, mann_whitney_u, mann_whitney_u_with};
pub use multitest::{benjamini_hochberg, holm};
pub use proportion::{ProportionTest, two_proportion_z};
pub use shift::{Shift, hodges_lehmann, median};
pub use ties::exact_with_ties;
