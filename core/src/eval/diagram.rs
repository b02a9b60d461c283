//! Reliability diagrams as SVG text: one dot per bin at (mean predicted probability,
//! observed share), the diagonal of perfect calibration, axes from 0 to 1.
//!
//! Pure string building (no I/O): the caller writes the file. Every number is printed
//! with a fixed number of decimals, so the same bins always give the same bytes.

use std::fmt::Write;

use super::metrics::Bin;

/// Width of the drawing, in pixels.
const WIDTH: f64 = 600.0;
/// Height of the drawing, in pixels.
const HEIGHT: f64 = 594.0;
/// Left edge of the plot area.
const LEFT: f64 = 110.0;
/// Top edge of the plot area.
const TOP: f64 = 114.0;
/// Side of the (square) plot area.
const SIDE: f64 = 420.0;
/// Radius of the dot of an (almost) empty bin and the extra radius of the fullest bin.
const R_MIN: f64 = 2.5;
const R_EXTRA: f64 = 9.5;

/// What a reliability diagram shows.
#[derive(Debug, Clone, Copy)]
pub struct Diagram<'a> {
    /// First line of the title (e.g. the data set and the dimension).
    pub title: &'a str,
    /// Second line (e.g. the label the scores are measured against).
    pub subtitle: &'a str,
    /// What the vertical axis shows (e.g. "observed share of positives").
    pub y_label: &'a str,
    /// The bins, as [`super::metrics::reliability`] returns them.
    pub bins: &'a [Bin],
    /// The expected calibration error printed in the header.
    pub ece: Option<f64>,
}

/// Horizontal pixel position of probability `p`.
fn x(p: f64) -> f64 {
    LEFT + SIDE * p
}

/// Vertical pixel position of share `q` (0 at the bottom).
fn y(q: f64) -> f64 {
    TOP + SIDE * (1.0 - q)
}

/// `text` with the five XML special characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The reliability diagram of `d` as a standalone SVG document (ends with a newline).
///
/// Each non-empty bin is a dot at (mean score, mean target) whose area grows with the
/// number of items in it, labelled with that number, and joined to the diagonal by a
/// thin line (its calibration gap). The header gives the number of items and the ECE.
pub fn reliability_svg(d: &Diagram) -> String {
    let n: usize = d.bins.iter().map(|b| b.count).sum();
    let fullest = d.bins.iter().map(|b| b.count).max().unwrap_or(0).max(1);
    let mut s = String::new();
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH:.0}" height="{HEIGHT:.0}" viewBox="0 0 {WIDTH:.0} {HEIGHT:.0}" font-family="DejaVu Sans, Arial, sans-serif">"#
    );
    let _ = writeln!(
        s,
        r##"<rect x="0" y="0" width="{WIDTH:.0}" height="{HEIGHT:.0}" fill="#ffffff"/>"##
    );
    // Header: title, subtitle, counts and ECE, legend.
    let ece = d.ece.map_or_else(|| "-".to_owned(), |e| format!("{e:.4}"));
    let bins = d.bins.len();
    let header = [
        (24.0, 15, "bold", "#1a202c", escape(d.title)),
        (45.0, 13, "normal", "#1a202c", escape(d.subtitle)),
        (
            66.0,
            13,
            "normal",
            "#1a202c",
            format!("n = {n}, ECE ({bins} equal-width bins) = {ece}"),
        ),
        (
            84.0,
            10,
            "normal",
            "#4a5568",
            "dot: one bin at (mean predicted, observed), its area growing with the number of \
             items, which labels it"
                .to_owned(),
        ),
        (
            98.0,
            10,
            "normal",
            "#4a5568",
            "red: the gap to the dashed diagonal of perfect calibration".to_owned(),
        ),
    ];
    for (top, size, weight, colour, text) in header {
        let _ = writeln!(
            s,
            r#"<text x="{:.2}" y="{top:.2}" font-size="{size}" font-weight="{weight}" fill="{colour}" text-anchor="middle">{text}</text>"#,
            WIDTH / 2.0
        );
    }
    // Grid at every tenth, ticks and tick labels at every fifth.
    for k in 0..=10 {
        let v = f64::from(k) / 10.0;
        let _ = writeln!(
            s,
            r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#e2e8f0" stroke-width="1"/>"##,
            x(v),
            y(0.0),
            x(v),
            y(1.0)
        );
        let _ = writeln!(
            s,
            r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#e2e8f0" stroke-width="1"/>"##,
            x(0.0),
            y(v),
            x(1.0),
            y(v)
        );
    }
    for k in 0..=5 {
        let v = f64::from(k) / 5.0;
        let _ = writeln!(
            s,
            r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#2d3748" stroke-width="1"/>"##,
            x(v),
            y(0.0),
            x(v),
            y(0.0) + 5.0
        );
        let _ = writeln!(
            s,
            r##"<text x="{:.2}" y="{:.2}" font-size="11" fill="#2d3748" text-anchor="middle">{v:.1}</text>"##,
            x(v),
            y(0.0) + 18.0
        );
        let _ = writeln!(
            s,
            r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#2d3748" stroke-width="1"/>"##,
            x(0.0) - 5.0,
            y(v),
            x(0.0),
            y(v)
        );
        let _ = writeln!(
            s,
            r##"<text x="{:.2}" y="{:.2}" font-size="11" fill="#2d3748" text-anchor="end">{v:.1}</text>"##,
            x(0.0) - 8.0,
            y(v) + 4.0
        );
    }
    // Axes (a frame) and their titles.
    let _ = writeln!(
        s,
        r##"<rect x="{:.2}" y="{:.2}" width="{SIDE:.2}" height="{SIDE:.2}" fill="none" stroke="#2d3748" stroke-width="1"/>"##,
        x(0.0),
        y(1.0)
    );
    let _ = writeln!(
        s,
        r##"<text x="{:.2}" y="{:.2}" font-size="12" fill="#1a202c" text-anchor="middle">mean predicted probability</text>"##,
        x(0.5),
        y(0.0) + 40.0
    );
    let (ly_x, ly_y) = (LEFT - 48.0, y(0.5));
    let _ = writeln!(
        s,
        r##"<text x="{ly_x:.2}" y="{ly_y:.2}" font-size="12" fill="#1a202c" text-anchor="middle" transform="rotate(-90 {ly_x:.2} {ly_y:.2})">{}</text>"##,
        escape(d.y_label)
    );
    // The diagonal.
    let _ = writeln!(
        s,
        r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#718096" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
        x(0.0),
        y(0.0),
        x(1.0),
        y(1.0)
    );
    // Gaps, then dots and their counts (so that no gap line covers a dot).
    let points: Vec<(f64, f64, usize)> = d
        .bins
        .iter()
        .filter_map(|b| Some((b.mean_score()?, b.mean_target()?, b.count)))
        .collect();
    for &(p, q, _) in &points {
        let _ = writeln!(
            s,
            r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#c53030" stroke-width="1.5"/>"##,
            x(p),
            y(p),
            x(p),
            y(q)
        );
    }
    if points.len() > 1 {
        let path: Vec<String> = points
            .iter()
            .map(|&(p, q, _)| format!("{:.2},{:.2}", x(p), y(q)))
            .collect();
        let _ = writeln!(
            s,
            r##"<polyline points="{}" fill="none" stroke="#2b6cb0" stroke-width="1" stroke-opacity="0.6"/>"##,
            path.join(" ")
        );
    }
    for &(p, q, count) in &points {
        let r = R_MIN + R_EXTRA * (count as f64 / fullest as f64).sqrt();
        let _ = writeln!(
            s,
            r##"<circle cx="{:.2}" cy="{:.2}" r="{r:.2}" fill="#2b6cb0" fill-opacity="0.8" stroke="#ffffff" stroke-width="1"/>"##,
            x(p),
            y(q)
        );
        // Count to the right of the dot, or to its left near the right edge.
        let (tx, anchor) = if p > 0.85 {
            (x(p) - r - 3.0, "end")
        } else {
            (x(p) + r + 3.0, "start")
        };
        let _ = writeln!(
            s,
            r##"<text x="{tx:.2}" y="{:.2}" font-size="10" fill="#1a202c" text-anchor="{anchor}">{count}</text>"##,
            y(q) + 3.5
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::metrics::reliability;

    fn diagram(bins: &[Bin]) -> String {
        reliability_svg(&Diagram {
            title: "set <test> & more",
            subtitle: "frustration >= 1 or satisfaction <= 2",
            y_label: "observed share",
            bins,
            ece: Some(0.123_456),
        })
    }

    #[test]
    fn dots_sit_at_bin_means() {
        // Plot area 420 px square from (110, 114). Bin [0, 0.1): one item, score 0.05,
        // target 0 -> (131, 534), the smaller dot. Bin [0.1, 0.2): two items, mean
        // 0.15, share 0.5 -> (173, 324), the fullest
        // (radius 2.5 + 9.5 = 12); the other has radius 2.5 + 9.5·√½ = 9.22.
        let bins = reliability(&[0.05, 0.15, 0.15], &[0.0, 1.0, 0.0], 10).unwrap();
        let svg = diagram(&bins);
        assert!(
            svg.contains(r#"<circle cx="131.00" cy="534.00" r="9.22""#),
            "{svg}"
        );
        assert!(svg.contains(r#"<circle cx="173.00" cy="324.00" r="12.00""#));
        assert_eq!(svg.matches("<circle").count(), 2);
        // Labels with the counts, the gap of the second bin (from 0.15 on the diagonal
        // to 0.5) and the path through both dots.
        assert!(svg.contains(r##"<text x="143.22" y="537.50" font-size="10" fill="#1a202c" text-anchor="start">1</text>"##));
        assert!(svg.contains(r#"<line x1="173.00" y1="471.00" x2="173.00" y2="324.00""#));
        assert!(svg.contains(r#"points="131.00,534.00 173.00,324.00""#));
    }

    #[test]
    fn header_axes_and_escaping() {
        let bins = reliability(&[0.95, 1.0], &[1.0, 1.0], 10).unwrap();
        let svg = diagram(&bins);
        assert!(svg.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "));
        assert!(svg.ends_with("</svg>\n"));
        assert!(svg.contains(">set &lt;test&gt; &amp; more</text>"));
        assert!(svg.contains(">frustration &gt;= 1 or satisfaction &lt;= 2</text>"));
        assert!(svg.contains(">n = 2, ECE (10 equal-width bins) = 0.1235</text>"));
        // Tick labels 0.0 … 1.0 on both axes and the dashed diagonal corner to corner.
        for t in ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"] {
            assert_eq!(svg.matches(&format!(">{t}</text>")).count(), 2, "{t}");
        }
        assert!(svg.contains(
            r##"<line x1="110.00" y1="534.00" x2="530.00" y2="114.00" stroke="#718096" stroke-width="1.5" stroke-dasharray="6 4"/>"##
        ));
        // A dot near the right edge is labelled on its left.
        assert!(svg.contains(r#"text-anchor="end">2</text>"#));
        // No polyline for a single dot.
        assert!(!svg.contains("<polyline"));
    }

    #[test]
    fn same_bins_same_bytes() {
        let scores: Vec<f64> = (0..200).map(|i| f64::from(i) / 199.0).collect();
        let targets: Vec<f64> = (0..200).map(|i| f64::from(i % 3) / 2.0).collect();
        let a = diagram(&reliability(&scores, &targets, 10).unwrap());
        let b = diagram(&reliability(&scores, &targets, 10).unwrap());
        assert_eq!(a, b);
        assert_eq!(a.matches("<circle").count(), 10);
        let empty = reliability_svg(&Diagram {
            title: "t",
            subtitle: "s",
            y_label: "y",
            bins: &[],
            ece: None,
        });
        assert!(empty.contains(">n = 0, ECE (0 equal-width bins) = -</text>"));
        assert!(!empty.contains("<circle"));
    }
}
