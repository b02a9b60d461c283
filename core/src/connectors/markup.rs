//! Helpdesk comments arrive as HTML (`html_body`, Intercom's `body`): the person's
//! words are the text a reader sees, so tags go, block ends become line breaks and
//! entities are decoded (by `html-escape`, which knows every HTML5 entity).

/// Elements whose end (or, for void elements, whose tag) ends a line of text.
const BLOCKS: [&str; 16] = [
    "p",
    "div",
    "br",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "ul",
    "ol",
    "table",
];

/// Elements whose contents are never shown as text.
const HIDDEN: [&str; 3] = ["script", "style", "head"];

/// Tags that mark a string as HTML rather than plain text that mentions `<` (a plain
/// body saying "use the <b> tag" would otherwise lose words).
const MARKERS: [&str; 10] = [
    "<p>",
    "<p ",
    "<br",
    "<div",
    "</a>",
    "</b>",
    "</strong>",
    "</li>",
    "</span>",
    "</em>",
];

/// Whether `s` reads as HTML markup.
pub(super) fn looks_like_html(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    MARKERS.iter().any(|m| lower.contains(m))
}

/// The text a reader of `html` sees: tags removed, block ends as line breaks, runs of
/// spaces collapsed, entities decoded, at most one blank line in a row.
pub(super) fn html_to_text(html: &str) -> String {
    let mut raw = String::with_capacity(html.len());
    let mut rest = html;
    let mut hidden: Option<&str> = None;
    while let Some(open) = rest.find('<') {
        if hidden.is_none() {
            raw.push_str(&rest[..open]);
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            // A lone `<` is text, not a tag.
            if hidden.is_none() {
                raw.push_str(&rest[open..]);
            }
            rest = "";
            break;
        };
        let tag = &after[..close];
        rest = &after[close + 1..];
        let (closing, name) = match tag.strip_prefix('/') {
            Some(t) => (true, tag_name(t)),
            None => (false, tag_name(tag)),
        };
        if let Some(h) = hidden {
            if closing && name == h {
                hidden = None;
            }
            continue;
        }
        if let Some(h) = HIDDEN.iter().find(|h| **h == name) {
            if !closing {
                hidden = Some(h);
            }
            continue;
        }
        if name == "br" {
            raw.push('\n');
        } else if BLOCKS.contains(&name.as_str()) && !raw.is_empty() && !raw.ends_with('\n') {
            // A block starts and ends on its own line.
            raw.push('\n');
        }
    }
    if hidden.is_none() {
        raw.push_str(rest);
    }
    let decoded = html_escape::decode_html_entities(&raw);
    tidy(&decoded)
}

/// The lower-case element name at the start of a tag's inside (`a href=…` → `a`).
fn tag_name(tag: &str) -> String {
    tag.trim_start()
        .split(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Collapses spaces within lines (HTML whitespace is not significant), trims lines,
/// and keeps at most one blank line between paragraphs.
fn tidy(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(&words.join(" "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_and_breaks_become_lines_and_entities_are_decoded() {
        let html = "<p>Hi Dana,</p><p>Your refund of &euro;40 is &quot;pending&quot;.<br>Tom&nbsp;&amp; team</p>";
        assert_eq!(
            html_to_text(html),
            "Hi Dana,\nYour refund of €40 is \"pending\".\nTom & team"
        );
    }

    #[test]
    fn links_keep_their_text_and_scripts_vanish() {
        let html = "<div>See <a href=\"https://x.test/a?b=1&amp;c=2\">the guide</a>.<script>alert('x')</script></div><style>p{}</style>";
        assert_eq!(html_to_text(html), "See the guide.");
    }

    #[test]
    fn lists_and_lone_angle_brackets() {
        let html = "<ul><li>one</li><li>two &lt; three</li></ul>1 < 2";
        assert_eq!(html_to_text(html), "one\ntwo < three\n1 < 2");
    }

    #[test]
    fn only_markup_counts_as_html() {
        assert!(looks_like_html("<p>hello</p>"));
        assert!(looks_like_html("line<br/>line"));
        assert!(!looks_like_html("is 3 < 4? use the <b> tag"));
    }
}
