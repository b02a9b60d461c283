//! The data files compiled into the library (lexicons and model tables), without the
//! comments written for people reading them.
//!
//! A comment line (`#` first) is emptied at compile time, its line break kept, so every
//! line keeps its number for the parsers' messages and the binary (the WebAssembly
//! package above all) carries only the data. Every reader of these files already skips
//! empty lines.

/// The text of a data file given as `include_bytes!(path)`, its comment lines emptied
/// ([`without_comments`]): a `&'static str` built at compile time.
macro_rules! data_file {
    ($bytes:expr) => {{
        const RAW: &[u8] = $bytes;
        const KEPT: [u8; $crate::data_file::kept_len(RAW)] =
            $crate::data_file::without_comments(RAW);
        match ::std::str::from_utf8(&KEPT) {
            Ok(text) => text,
            Err(_) => panic!("a compiled-in data file is not UTF-8"),
        }
    }};
}
pub(crate) use data_file;

/// Whether byte `at` of `raw` is kept, given whether the line before it was a comment:
/// `(kept, whether its line is a comment)`. A comment line keeps only its line break.
const fn keeps(raw: &[u8], at: usize, comment: bool) -> (bool, bool) {
    let b = raw[at];
    let comment = if at == 0 || raw[at - 1] == b'\n' {
        b == b'#'
    } else {
        comment
    };
    (!comment || b == b'\n', comment)
}

/// Bytes of `raw` that [`without_comments`] keeps.
pub const fn kept_len(raw: &[u8]) -> usize {
    let (mut kept, mut at, mut comment) = (0, 0, false);
    while at < raw.len() {
        let keep;
        (keep, comment) = keeps(raw, at, comment);
        kept += keep as usize;
        at += 1;
    }
    kept
}

/// `raw` with every line that starts with `#` emptied (its line break kept); `N` is
/// [`kept_len`] of `raw`. UTF-8 stays UTF-8: only whole lines, which start and end
/// on character boundaries, are left out.
pub const fn without_comments<const N: usize>(raw: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let (mut kept, mut at, mut comment) = (0, 0, false);
    while at < raw.len() {
        let keep;
        (keep, comment) = keeps(raw, at, comment);
        if keep {
            out[kept] = raw[at];
            kept += 1;
        }
        at += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn comment_lines_are_emptied_and_line_numbers_kept() {
        const SAMPLE: &[u8] = "# about\nword\t1\n#\n\n# é\nmot # not a comment\n#end".as_bytes();
        let text = data_file!(SAMPLE);
        assert_eq!(text, "\nword\t1\n\n\n\nmot # not a comment\n");
        assert_eq!(
            text.lines().count(),
            SAMPLE.split(|&b| b == b'\n').count() - 1
        );
        assert_eq!(data_file!(b""), "");
        assert_eq!(data_file!(b"#"), "");
        assert_eq!(data_file!(b"a\r\n#b\r\nc"), "a\r\n\nc");
    }

    #[test]
    fn every_data_line_of_the_lexicons_is_kept() {
        // The markers file read as written, comments skipped, against the compiled text.
        let raw = include_str!("../lexicons/markers.tsv");
        let kept = data_file!(include_bytes!("../lexicons/markers.tsv"));
        let data = |t: &str| {
            t.lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(data(kept), data(raw));
        assert_eq!(kept.lines().count(), raw.lines().count());
        assert!(kept.len() < raw.len());
        assert!(!kept.lines().any(|l| l.starts_with('#')));
    }
}
