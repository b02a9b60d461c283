//! `undertone import --from …` and `undertone score --from …`: the connectors on the
//! command line, with files, a Slack export folder, a mapping document, and the
//! documented errors.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{
    assert_error_envelope, assert_json_output, assert_one_line_error, example, run, run_on_stream,
};

fn golden(format: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden/connectors")
        .join(format!("{format}.json"));
    let text = fs::read_to_string(&path).expect("golden file is readable");
    serde_json::from_str(&text).expect("golden file is JSON")
}

/// Exit 0, the request on stdout; the skipped items' note on stderr is returned.
fn imported(args: &[&str], input: &Path) -> (Value, String) {
    let out = run(args, Some(input), None);
    assert_eq!(out.code, Some(0), "{out:?}");
    let request = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    (request, out.stderr)
}

#[test]
fn a_slack_export_folder_imports_to_its_golden_request_and_notes_what_was_left_out() {
    let dir = example("connectors/slack");
    let (request, stderr) = imported(&["import", "--from", "slack"], &dir);
    let golden = golden("slack");
    assert_eq!(request, golden["request"]);
    // Files under the folder are named relative to it, as in the golden case.
    let mut expected = format!(
        "note: {} items of {} left out:\n",
        golden["skipped"].as_array().unwrap().len(),
        dir.display()
    );
    for s in golden["skipped"].as_array().unwrap() {
        expected.push_str(&format!(
            "  {}: {}\n",
            s["at"].as_str().unwrap(),
            s["reason"].as_str().unwrap()
        ));
    }
    assert_eq!(stderr, expected);
}

#[test]
fn every_single_file_fixture_imports_to_its_golden_request() {
    for (format, file) in [
        ("chatgpt", "conversations.json"),
        ("claude", "conversations.json"),
        ("zendesk", "tickets.json"),
        ("intercom", "conversations.jsonl"),
    ] {
        let path = example(&format!("connectors/{format}/{file}"));
        let (request, stderr) = imported(&["import", "--from", format], &path);
        assert_eq!(request, golden(format)["request"], "{format}");
        assert!(stderr.starts_with("note: "), "{format}: {stderr}");
    }
}

#[test]
fn a_mapping_document_is_named_after_the_mapping_prefix() {
    let mapping = example("connectors/mapping/mapping.json");
    let from = format!("mapping:{}", mapping.display());
    let input = example("connectors/mapping/events.jsonl");
    let (request, stderr) = imported(&["import", "--from", &from], &input);
    assert_eq!(request, golden("mapping")["request"]);
    let first = format!(
        "  {}:1#/data/turns/3: `content` (/text) is of type object, not text",
        input.display()
    );
    assert!(stderr.lines().any(|l| l == first), "{stderr}");
}

#[test]
fn the_deployment_id_defaults_to_the_format_and_can_be_set() {
    let path = example("connectors/zendesk/tickets.json");
    let (request, _) = imported(&["import", "--from", "zendesk"], &path);
    assert_eq!(request["deployment_id"], "zendesk");
    let (request, _) = imported(
        &[
            "import",
            "--from",
            "zendesk",
            "--deployment-id",
            "helpdesk-eu",
        ],
        &path,
    );
    assert_eq!(request["deployment_id"], "helpdesk-eu");
    // A bad id is named by the flag, as `score` names it.
    let out = run(
        &[
            "import",
            "--from",
            "zendesk",
            "--deployment-id",
            "",
            "--json",
        ],
        Some(&path),
        None,
    );
    let envelope = assert_error_envelope(&out);
    assert_eq!(envelope["error"]["details"][0]["path"], "--deployment-id");
}

#[test]
fn score_from_chatgpt_prints_the_table() {
    let path = example("connectors/chatgpt/conversations.json");
    let out = run(
        &["score", "--from", "chatgpt", "--format", "table"],
        Some(&path),
        None,
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    let header = out.stdout.lines().next().unwrap_or_default();
    assert!(
        header.starts_with("conversation") && header.contains("band"),
        "{header}"
    );
    // The refund conversation that ends in "forget it" is broken.
    let refund = out
        .stdout
        .lines()
        .find(|l| l.starts_with("= 6a1f0c2e"))
        .unwrap_or_else(|| panic!("no summary line: {}", out.stdout));
    assert!(refund.contains("broken"), "{refund}");
}

#[test]
fn score_from_a_slack_folder_gives_the_same_scores_as_scoring_its_import() {
    let dir = example("connectors/slack");
    let (request, _) = imported(&["import", "--from", "slack"], &dir);
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("request.json");
    fs::write(&file, request.to_string()).unwrap();
    let direct = assert_json_output(&run(&["score"], Some(&file), None));
    let out = run(&["score", "--from", "slack"], Some(&dir), None);
    assert_eq!(out.code, Some(0), "{out:?}");
    let via: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(via["intelligence"], direct["intelligence"]);
}

#[test]
fn an_export_stream_that_cannot_be_json_is_refused_without_being_read_to_its_end() {
    // Exports are read whole, with no size limit; every format is JSON or JSON Lines,
    // so a stream of zeros is refused at its first byte instead of read until memory
    // runs out, with the error the same byte alone gives.
    let tail = 64 * 1024 * 1024;
    for from in ["chatgpt", "slack"] {
        let (out, written) = run_on_stream(&["import", "--from", from, "-"], b"", tail);
        let alone = run(&["import", "--from", from, "-"], None, Some(vec![0]));
        assert_eq!(
            (out.code, &out.stdout),
            (Some(2), &String::new()),
            "{out:?}"
        );
        assert_eq!(out.stderr, alone.stderr, "{from}");
        assert!(
            written < tail / 2,
            "{from}: {written} of {tail} bytes were taken"
        );
    }
    let (out, _) = run_on_stream(&["import", "--from", "chatgpt", "-"], b"", tail);
    assert_eq!(
        out.stderr,
        "error: standard input breaks the input contract (VALIDATION_ERROR, 1 problem):\n  \
         standard input: is not JSON: expected value at line 1 column 1\n"
    );
}

#[test]
fn errors_name_the_file_the_position_and_what_was_expected() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("c.json");
    fs::write(&bad, br#"{"x": 1}"#).unwrap();
    let out = run(&["import", "--from", "intercom"], Some(&bad), None);
    let name = bad.display();
    assert_eq!(
        out.stderr,
        format!(
            "error: {name} breaks the input contract (VALIDATION_ERROR, 1 problem):\n  {name}: \
             expected an Intercom conversation (an object with \"type\": \"conversation\"), an \
             array of them or {{\"conversations\": [...]}}; got an object without \"type\": \
             \"conversation\" (is this another export format?)\n"
        )
    );
    assert_eq!((out.code, out.stdout.as_str()), (Some(2), ""));

    let out = run(
        &["import", "--from", "intercom", "--json"],
        Some(&bad),
        None,
    );
    let envelope = assert_error_envelope(&out);
    assert_eq!(envelope["error"]["details"][0]["path"], name.to_string());

    let out = run(&["import", "--from", "zip"], Some(&bad), None);
    assert!(
        out.stderr.ends_with(
            "  --from: must be one of chatgpt, claude, zendesk, intercom, slack, mapping; got \"zip\"\n"
        ),
        "{out:?}"
    );
    assert_eq!(out.code, Some(2));

    // A faulty mapping document is blamed, not the input.
    let mapping = tmp.path().join("m.json");
    fs::write(&mapping, br#"{"role": "/r"}"#).unwrap();
    let from = format!("mapping:{}", mapping.display());
    let out = run(&["import", "--from", &from], Some(&bad), None);
    let m = mapping.display();
    assert_eq!(
        out.stderr,
        format!(
            "error: {m} breaks the input contract (VALIDATION_ERROR, 1 problem):\n  \
             {m}.conversation: is required; see docs/connectors.md\n"
        )
    );

    let missing = tmp.path().join("nope.json");
    let from = format!("mapping:{}", missing.display());
    let out = run(&["import", "--from", &from], Some(&bad), None);
    assert_one_line_error(
        &out,
        &format!(
            "error: cannot read {}: No such file or directory (os error 2)",
            missing.display()
        ),
    );

    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let out = run(&["import", "--from", "slack"], Some(&empty), None);
    assert_one_line_error(
        &out,
        &format!("error: {} is an empty folder", empty.display()),
    );
}
