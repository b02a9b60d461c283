//! The offline report: one self-contained HTML file with the session page of a scored
//! request. No network and no external file: the stylesheet, the renderers and the data
//! are inside, and its Content-Security-Policy allows exactly its one inline script
//! (by hash) and its stylesheet (by hash), so it opens from `file://` and nothing
//! in the data can run.

use base64::Engine;
use sha2::{Digest, Sha256};
use undertone_core::IngestRequest;
use undertone_core::assemble;
use undertone_core::score::SessionIntelligence;

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

/// JSON safe inside a `<script type="application/json">`: `<`, `>` and `&` are escaped
/// as `\u003c` …, so no text in it can close the element or open a comment.
fn island(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// Text safe in an HTML element or attribute.
fn text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The report of `result`, scored from `request`.
pub fn html(request: &IngestRequest, result: &SessionIntelligence) -> String {
    let assembly = assemble(&request.events, Some(&request.deployment_id));
    let data = serde_json::json!({
        "result": result,
        "assembly": assembly,
    });
    let script = format!("{RENDER_JS}\n{BOOT}");
    let csp = format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; \
         form-action 'none'",
        hash_source(&script),
        hash_source(CSS)
    );
    let title = format!("Undertone report: {}", result.intelligence.deployment_id);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <title>{title}</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>{CSS}</style>\n</head>\n<body>\n\
         <header class=\"top\"><span class=\"brand\">Undertone</span>\
         <span>Report of {deployment}</span></header>\n\
         <main id=\"main\"><h1>{title}</h1><noscript>This report draws its pages with \
         JavaScript.</noscript></main>\n\
         <script type=\"application/json\" id=\"undertone-data\">{data}</script>\n\
         <script>{script}</script>\n</body>\n</html>\n",
        title = text(&title),
        deployment = text(&result.intelligence.deployment_id),
        data = island(&data.to_string()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_cannot_leave_the_data_island() {
        let hostile = r#"</script><img src=x onerror=alert(1)><!-- & "#;
        let out = island(&serde_json::json!({ "content": hostile }).to_string());
        assert!(
            !out.contains('<') && !out.contains('>') && !out.contains('&'),
            "{out}"
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
