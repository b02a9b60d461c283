#!/usr/bin/env python3
"""Write the reference vectors that core/tests/it/stats.rs checks undertone_core::stats against.

Run from the repository root:

    python3 tests/reference/gen_reference.py

Writes, next to this script:

- mannwhitney.json  scipy.stats.mannwhitneyu (two-sided, use_continuity=True) with
                    method="auto", "asymptotic" and (where SciPy can afford it) "exact",
                    plus the Hodges-Lehmann estimate numpy.median(y - x over all pairs).
- proportions.json  pooled two-proportion z-test (statsmodels proportions_ztest when
                    installed, else the formula with scipy.stats.norm; "source" says which).
- multitest.json    Holm and Benjamini-Hochberg adjusted p-values (statsmodels
                    multipletests when installed, else the textbook definitions).

Everything is seeded, so a rerun with the same library versions writes identical files.
CI does not run this script; the JSON files are committed.

Sample values are rounded to at most 6 decimals (or are small integers) so that every
JSON number has few significant digits and parses to the same f64 in any correct or
fast-path JSON parser. Exact-comparison outputs (the Hodges-Lehmann estimate) are
written as strings holding Python's repr, which Rust's str::parse::<f64> reads exactly.
"""

import json
import platform
from pathlib import Path

import numpy as np
import scipy
from scipy import stats
from scipy.stats import _mannwhitneyu as scipy_mwu  # only for the "auto" rule, as a check

try:
    import statsmodels
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportions_ztest

    HAVE_STATSMODELS = True
except ImportError:  # pragma: no cover - depends on the machine
    HAVE_STATSMODELS = False

HERE = Path(__file__).resolve().parent
SEED = 20260521
rng = np.random.default_rng(SEED)

VERSIONS = (
    f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}"
    + (f", statsmodels {statsmodels.__version__}" if HAVE_STATSMODELS else "")
)

# Exact p-values cost SciPy O((m*n/2)^2); skip forced "exact" beyond this m*n/2.
EXACT_MAX_HALF_PAIRS = 20_000


# ---------------------------------------------------------------------------------------
# Samples
# ---------------------------------------------------------------------------------------


def draw(kind, size, shift):
    """One sample of `size` values of the given kind, location moved by `shift`."""
    if kind == "continuous":
        values = np.round(rng.normal(shift, 1.0, size), 6)
    elif kind == "wide":  # continuous over a large range, still <= 6 decimals
        values = np.round(rng.standard_t(3, size) * 1000.0 + shift * 1000.0, 3)
    elif kind == "int5":  # many ties
        values = rng.integers(0, 5, size) + round(shift)
    elif kind == "int50":  # some ties
        values = rng.integers(0, 50, size) + round(shift * 10)
    elif kind == "round1":
        values = np.round(rng.normal(shift, 1.0, size), 1)
    elif kind == "round2":
        values = np.round(rng.normal(shift, 1.0, size), 2)
    else:
        raise ValueError(kind)
    return [float(v) for v in values]


def has_ties(x, y):
    pooled = np.asarray(x + y)
    return np.unique(pooled).size < pooled.size


def draw_pair(kind, m, n, shift, want_ties=None):
    """Draw x (location 0) and y (location `shift`); retry until ties are as wanted."""
    for _ in range(1000):
        x = draw(kind, m, 0.0)
        y = draw(kind, n, shift)
        if want_ties is None or has_ties(x, y) == want_ties:
            return x, y
    raise RuntimeError(f"could not draw {kind} {m}x{n} with ties={want_ties}")


# ---------------------------------------------------------------------------------------
# Mann-Whitney U and Hodges-Lehmann
# ---------------------------------------------------------------------------------------


def mwu_case(name, x, y, exact="auto"):
    """exact: "auto" computes method="exact" when affordable, True forces, False skips."""
    xa, ya = np.asarray(x, float), np.asarray(y, float)
    auto = stats.mannwhitneyu(xa, ya, alternative="two-sided", method="auto")
    asym = stats.mannwhitneyu(xa, ya, alternative="two-sided", method="asymptotic")
    ties = has_ties(x, y)
    auto_method = scipy_mwu._mwu_choose_method(len(x), len(y), ties)
    assert auto_method in ("exact", "asymptotic")

    case = {
        "name": name,
        "x": x,
        "y": y,
        "ties": ties,
        "u1": float(auto.statistic),
        "auto_method": auto_method,
        "auto_p": float(auto.pvalue),
        "asymptotic_p": float(asym.pvalue),
    }
    assert float(asym.statistic) == case["u1"]

    want_exact = exact is True or (
        exact == "auto" and len(x) * len(y) / 2 <= EXACT_MAX_HALF_PAIRS
    )
    if want_exact or auto_method == "exact":
        ex = stats.mannwhitneyu(xa, ya, alternative="two-sided", method="exact")
        case["exact_p"] = float(ex.pvalue)
        assert float(ex.statistic) == case["u1"]
    if auto_method == "exact":
        assert case["auto_p"] == case["exact_p"], name
    else:
        assert case["auto_p"] == case["asymptotic_p"], name

    # Hodges-Lehmann: median of all differences y_j - x_i (after minus before).
    differences = np.subtract.outer(ya, xa)
    case["hl_estimate"] = repr(float(np.median(differences)))
    return case


def mannwhitney_cases():
    cases = []

    # Every (m, n) with 1 <= m, n <= 8, no ties: the exact path of method="auto".
    for m in range(1, 9):
        for n in range(1, 9):
            for shift in (0.0, 1.5):
                x, y = draw_pair("continuous", m, n, shift, want_ties=False)
                cases.append(mwu_case(f"grid-continuous-{m}x{n}-shift{shift}", x, y))

    # Every (m, n) with 1 <= m, n <= 8, with ties: "auto" goes asymptotic; "exact" is
    # computed too (no tie correction; SciPy truncates a half-integer U).
    for m in range(1, 9):
        for n in range(1, 9):
            x, y = draw_pair("int5", m, n, 0.5, want_ties=True if m + n > 2 else None)
            cases.append(mwu_case(f"grid-int5-{m}x{n}", x, y, exact=True))

    # Mixed sizes, all kinds of data.
    sizes = [1, 2, 5, 8, 9, 20, 50, 200, 2000]
    kinds = ["continuous", "int5", "int50", "round1", "round2", "wide"]
    shifts = [0.0, 0.3, 1.0]
    counter = 0
    for m in sizes:
        for n in sizes:
            if m * n >= 400_000 and (m, n) != (2000, 2000):
                # Keep the file small: of the 2000x200 / 200x2000 pairs keep one kind.
                kind_list = ["round2"] if m < n else ["int50"]
            elif m * n >= 4_000_000:
                kind_list = ["round1"]
            else:
                kind_list = [kinds[counter % len(kinds)], kinds[(counter + 3) % len(kinds)]]
            for kind in kind_list:
                shift = shifts[counter % len(shifts)]
                counter += 1
                x, y = draw_pair(kind, m, n, shift)
                cases.append(mwu_case(f"mixed-{kind}-{m}x{n}-shift{shift}", x, y))

    # Exact path of "auto" with one small and one large sample (min(m, n) <= 8).
    for m, n, shift in [(1, 2000, 0.0), (3, 2000, 2.0), (8, 2000, 0.2), (2000, 8, 0.0),
                        (8, 200, 1.0), (5, 50, 0.0), (2, 9, 3.0), (9, 8, 0.5)]:
        x, y = draw_pair("continuous", m, n, shift, want_ties=False)
        cases.append(mwu_case(f"auto-exact-continuous-{m}x{n}-shift{shift}", x, y))

    # Forced exact for larger samples without ties (auto would go asymptotic).
    for m, n in [(9, 9), (10, 15), (20, 20), (30, 25), (50, 50), (12, 300), (100, 100)]:
        x, y = draw_pair("continuous", m, n, 0.4, want_ties=False)
        cases.append(mwu_case(f"forced-exact-continuous-{m}x{n}", x, y, exact=True))

    # Edge cases.
    cases.append(mwu_case("edge-one-vs-one-tied", [1.0], [1.0], exact=True))
    cases.append(mwu_case("edge-one-vs-one", [1.0], [2.0]))
    cases.append(mwu_case("edge-all-tied", [1.0, 1.0, 1.0], [1.0, 1.0], exact=True))
    cases.append(mwu_case("edge-all-tied-large", [2.5] * 30, [2.5] * 40))
    cases.append(mwu_case("edge-nearly-all-tied", [0.0] * 40 + [1.0], [0.0] * 50))
    cases.append(mwu_case("edge-half-u-exact", [1.0, 2.0, 3.0], [2.0, 4.0], exact=True))
    cases.append(
        mwu_case("edge-separated-8x2000", [float(v) for v in range(8)],
                 [float(v) + 100.0 for v in range(2000)])
    )
    cases.append(
        mwu_case("edge-separated-200x200", [float(v) for v in range(200)],
                 [float(v) + 1000.0 for v in range(200)], exact=False)
    )
    cases.append(
        mwu_case("edge-separated-2000x2000", [float(v) for v in range(2000)],
                 [float(v) + 5000.0 for v in range(2000)], exact=False)
    )
    x, y = draw_pair("continuous", 30, 30, 2.5, want_ties=False)
    cases.append(mwu_case("edge-small-p-30x30", x, y, exact=True))
    return cases


# ---------------------------------------------------------------------------------------
# Two-proportion z-test
# ---------------------------------------------------------------------------------------


def proportion_case(s1, n1, s2, n2):
    case = {"success1": s1, "n1": n1, "success2": s2, "n2": n2}
    # None by undertone's definition (no statsmodels call): empty sample, count above
    # its total, or pooled proportion 0 or 1.
    invalid = n1 == 0 or n2 == 0 or s1 > n1 or s2 > n2 or s1 + s2 in (0, n1 + n2)
    if invalid:
        case["expected"] = None
        return case
    p1, p2 = s1 / n1, s2 / n2
    if HAVE_STATSMODELS:
        z_first_minus_second, p_value = proportions_ztest([s1, s2], [n1, n2])
        z = -float(z_first_minus_second)
    else:
        pooled = (s1 + s2) / (n1 + n2)
        se = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        z = (p2 - p1) / se
        p_value = 2 * stats.norm.sf(abs(z))
    case["expected"] = {"p1": p1, "p2": p2, "diff": p2 - p1, "z": z, "p_value": float(p_value)}
    return case


def proportion_cases():
    cases = []
    for scale in (5, 20, 100, 1_000, 100_000, 10_000_000):
        for _ in range(12):
            n1 = int(rng.integers(1, scale + 1))
            n2 = int(rng.integers(1, scale + 1))
            rate1 = rng.uniform(0.0, 1.0)
            rate2 = min(1.0, max(0.0, rate1 + rng.normal(0, 0.1)))
            s1 = int(rng.binomial(n1, rate1))
            s2 = int(rng.binomial(n2, rate2))
            cases.append(proportion_case(s1, n1, s2, n2))
    cases += [
        proportion_case(5, 83, 12, 99),  # statsmodels documentation example
        proportion_case(40, 100, 60, 100),
        proportion_case(5, 10, 10, 20),  # equal rates: z = 0, p = 1
        proportion_case(1, 1000, 999, 1000),  # tiny p
        proportion_case(0, 1000, 1000, 1000),  # p underflows to 0
        proportion_case(3, 2_000_000, 9, 2_000_000),
        proportion_case(0, 5, 1, 5),
        proportion_case(0, 0, 1, 2),
        proportion_case(1, 2, 0, 0),
        proportion_case(3, 2, 1, 2),
        proportion_case(0, 5, 0, 7),
        proportion_case(5, 5, 7, 7),
    ]
    return cases


# ---------------------------------------------------------------------------------------
# Holm and Benjamini-Hochberg
# ---------------------------------------------------------------------------------------


def holm_by_definition(p):
    p = np.asarray(p, float)
    k = p.size
    order = np.argsort(p, kind="stable")
    out = np.empty(k)
    running = -np.inf
    for rank, i in enumerate(order):
        running = max(running, (k - rank) * p[i])
        out[i] = min(running, 1.0)
    return out


def bh_by_definition(p):
    p = np.asarray(p, float)
    k = p.size
    order = np.argsort(p, kind="stable")
    out = np.empty(k)
    running = np.inf
    for rank in range(k - 1, -1, -1):
        i = order[rank]
        running = min(running, p[i] / ((rank + 1) / k))
        out[i] = min(running, 1.0)
    return out


def multitest_cases():
    vectors = []
    for length in list(range(1, 21)) + [30, 50, 100, 1000]:
        for style in ("uniform", "small", "rounded"):
            if style == "uniform":
                p = rng.uniform(0, 1, length)
            elif style == "small":  # mostly small p-values, as under many real effects
                p = rng.beta(0.3, 2.0, length)
            else:  # duplicates, plus exact 0 and 1 sometimes
                p = np.round(rng.uniform(0, 1, length), 2)
            vectors.append([float(v) for v in p])
    vectors += [[0.0, 1.0, 0.5], [1e-300, 1e-10, 0.04, 0.04, 0.04], [0.01, 0.04, 0.03]]

    cases = []
    for p in vectors:
        holm_def, bh_def = holm_by_definition(p), bh_by_definition(p)
        if HAVE_STATSMODELS:
            holm = multipletests(p, method="holm")[1]
            bh = multipletests(p, method="fdr_bh")[1]
            # The definitions above agree with statsmodels (a check of this script).
            assert np.allclose(holm, holm_def, rtol=1e-12, atol=0), p
            assert np.allclose(bh, bh_def, rtol=1e-12, atol=0), p
        else:
            holm, bh = holm_def, bh_def
        cases.append({"p": p, "holm": [float(v) for v in holm], "bh": [float(v) for v in bh]})
    return cases


# ---------------------------------------------------------------------------------------


def write(name, payload):
    path = HERE / name
    path.write_text(json.dumps(payload, separators=(",", ":")) + "\n")
    print(f"wrote {path.relative_to(HERE.parent.parent)} ({path.stat().st_size:,} bytes)")


def main():
    mwu = mannwhitney_cases()
    write(
        "mannwhitney.json",
        {
            "source": f"scipy.stats.mannwhitneyu(x, y, alternative='two-sided', "
            f"use_continuity=True, method=auto|asymptotic|exact) and "
            f"numpy.median(numpy.subtract.outer(y, x)); {VERSIONS}; seed {SEED}",
            "cases": mwu,
        },
    )
    write(
        "proportions.json",
        {
            "source": (
                f"statsmodels.stats.proportion.proportions_ztest([s1, s2], [n1, n2]) "
                f"(pooled variance, two-sided) with z negated to second minus first"
                if HAVE_STATSMODELS
                else "statsmodels not installed: the pooled z formula with scipy.stats.norm.sf"
            )
            + f"; expected null = invalid input by undertone's definition; {VERSIONS}; "
            f"seed {SEED}",
            "cases": proportion_cases(),
        },
    )
    write(
        "multitest.json",
        {
            "source": (
                "statsmodels.stats.multitest.multipletests(p, method='holm' | 'fdr_bh')[1], "
                "cross-checked against the textbook definitions"
                if HAVE_STATSMODELS
                else "statsmodels not installed: textbook definitions of Holm and BH"
            )
            + f"; {VERSIONS}; seed {SEED}",
            "cases": multitest_cases(),
        },
    )


if __name__ == "__main__":
    main()
