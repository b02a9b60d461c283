//! The offline report: one self-contained HTML file with the session page of a scored
//! request. No network and no external file: the stylesheet, the renderers and the data
//! are inside, and its Content-Security-Policy allows exactly its one inline script
//! (by hash) and its stylesheet (by hash), so it opens from `file://` and nothing
//! in the data can run.

use std::io::{self, Write};

use base64::Engine;
use serde::Serialize;
use sha2::{Digest, Sha256};
use undertone_core::score::SessionIntelligence;
use undertone_core::{Assembly, IngestRequest, assemble, decimal};

use super::{CSS, RENDER_JS};

/// Draws the page from the data island once the document is read.
const BOOT: &str = r#"
(function () {
  const data = JSON.parse(document.getElementById("undertone-data").textContent);
  const main = document.getElementById("main");
  main.append(Undertone.session(data.result, data.assembly));
})();
"#;

/// `'sha256-…'` of a text, as CSP writes a hash source.
fn hash_source(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// A writer of JSON safe inside a `<script type="application/json">`: `<`, `>` and `&`
/// are written as `\u003c` …, so no text in it can close the element or open a
/// comment. Outside strings JSON has none of the three, so escaping them byte by byte
/// as the JSON passes leaves the same value.
struct Island<W>(W);

impl<W: Write> Write for Island<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut from = 0;
        for (at, byte) in buf.iter().enumerate() {
            let escaped: &[u8] = match byte {
                b'<' => b"\\u003c",
                b'>' => b"\\u003e",
                b'&' => b"\\u0026",
                _ => continue,
            };
            self.0.write_all(&buf[from..at])?;
            self.0.write_all(escaped)?;
            from = at + 1;
        }
        self.0.write_all(&buf[from..])?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// What the page draws: the result and the conversations as assembled.
#[derive(Serialize)]
struct Data<'a> {
    result: &'a SessionIntelligence,
    assembly: &'a Assembly<'a>,
}

/// Text safe in an HTML element or attribute.
fn text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Writes the report of `result`, scored from `request`, to `out` as it is serialised:
/// the data is never whole in memory as a value or a text (for the 100,000 human turns
/// of `scripts/bench-score`'s corpus, building it whole took 4.7 GB).
pub fn write(
    out: &mut impl Write,
    request: &IngestRequest,
    result: &SessionIntelligence,
) -> io::Result<()> {
    let assembly = assemble(&request.events, Some(&request.deployment_id));
    let script = format!("{RENDER_JS}\n{BOOT}");
    let csp = format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; \
         form-action 'none'",
        hash_source(&script),
        hash_source(CSS)
    );
    let title = format!("Undertone report: {}", result.intelligence.deployment_id);
    write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <title>{title}</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>{CSS}</style>\n</head>\n<body>\n\
         <header class=\"top\"><span class=\"brand\">Undertone</span>\
         <span>Report of {deployment}</span></header>\n\
         <main id=\"main\"><h1>{title}</h1><noscript>This report draws its pages with \
         JavaScript.</noscript></main>\n\
         <script type=\"application/json\" id=\"undertone-data\">",
        title = text(&title),
        deployment = text(&result.intelligence.deployment_id),
    )?;
    let data = Data {
        result,
        assembly: &assembly,
    };
    // serde_json's compact text, with the results' numbers written faster.
    let mut json = serde_json::Serializer::with_formatter(Island(&mut *out), decimal::Json);
    data.serialize(&mut json).map_err(io::Error::from)?;
    write!(
        out,
        "</script>\n<script>{script}</script>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report of `request` as one text.
    fn html(request: &IngestRequest, result: &SessionIntelligence) -> String {
        let mut page = Vec::new();
        write(&mut page, request, result).unwrap();
        String::from_utf8(page).unwrap()
    }

    #[test]
    fn hostile_text_cannot_leave_the_data_island() {
        let hostile = r#"</script><img src=x onerror=alert(1)><!-- & "#;
        let mut island = Island(Vec::new());
        // Written in pieces, as a serialiser writes, the escapes falling across them.
        let json = serde_json::json!({ "content": hostile }).to_string();
        let (a, b) = json.split_at(json.find('>').unwrap());
        island.write_all(a.as_bytes()).unwrap();
        island.write_all(b.as_bytes()).unwrap();
        let out = String::from_utf8(island.0).unwrap();
        assert!(
            !out.contains('<') && !out.contains('>') && !out.contains('&'),
            "{out}"
        );
        assert_eq!(
            out,
            json.replace('<', "\\u003c")
                .replace('>', "\\u003e")
                .replace('&', "\\u0026")
        );
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back["content"], hostile);
        assert_eq!(text("<b a=\"1\">&"), "&lt;b a=&quot;1&quot;&gt;&amp;");
    }

    #[test]
    fn the_policy_allows_exactly_the_inline_script_and_style() {
        let body = serde_json::json!({"deployment_id": "bot", "events": [
            {"actor_id": "u", "content": "</script><b>hi", "timestamp": "2026-11-21T09:30:00Z"},
            {"actor_id": "bot", "content": "Hello!", "timestamp": "2026-11-21T09:30:05Z"}]});
        let options = undertone_core::validate::Options::default();
        let request = undertone_core::validate::ingest_request(&body, &options).unwrap();
        let page = html(&request, &undertone_core::score::score(&request));
        let between = |open: &str, close: &str| {
            let start = page.rfind(open).unwrap() + open.len();
            page[start..start + page[start..].find(close).unwrap()].to_owned()
        };
        let script = between("<script>", "</script>\n</body>");
        let style = between("<style>", "</style>");
        let csp = between("Content-Security-Policy\" content=\"", "\"");
        assert!(
            csp.contains(&format!("script-src {};", hash_source(&script))),
            "{csp}"
        );
        assert!(
            csp.contains(&format!("style-src {};", hash_source(&style))),
            "{csp}"
        );
        assert_eq!(
            page.matches("<script").count(),
            2,
            "the data island and the one script"
        );
        assert!(
            !page.contains("</script><b>"),
            "the content stays inside its island"
        );
    }

    #[test]
    fn a_hash_source_is_the_base64_sha256() {
        // sha256("") = e3b0c442…b855, base64 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=
        assert_eq!(
            hash_source(""),
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
        );
    }
}
