"""Connectors: `import_conversations` gives exactly what the Rust core gives on the
golden cases (tests/golden/connectors), raises core's errors, and refuses arguments
of the wrong type."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import undertone

from conftest import ROOT, read_json

GOLDEN = ROOT / "tests" / "golden" / "connectors"
FIXTURES = ROOT / "examples" / "connectors"
CASES: list[dict[str, Any]] = read_json(GOLDEN / "cases.json")
CHATGPT = (FIXTURES / "chatgpt" / "conversations.json").read_bytes()


def load(case: dict[str, Any]) -> tuple[dict[str, bytes], bytes | None]:
    """A case's files, by the names cases.json gives them, and its mapping document."""
    folder = FIXTURES / case["format"]
    files = {name: (folder / name).read_bytes() for name in case["files"]}
    mapping = (folder / case["mapping"]).read_bytes() if case["mapping"] else None
    return files, mapping


def test_there_are_cases() -> None:
    formats = [c["format"] for c in CASES]
    assert {"chatgpt", "claude"} <= set(formats)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["format"])
def test_import_matches_the_golden_output(case: dict[str, Any]) -> None:
    files, mapping = load(case)
    got = undertone.import_conversations(case["format"], files, mapping=mapping)
    assert got == read_json(GOLDEN / f"{case['format']}.json")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["format"])
def test_text_gives_what_bytes_give(case: dict[str, Any]) -> None:
    files, mapping = load(case)
    text = {name: data.decode("utf-8") for name, data in files.items()}
    mapping_text = mapping.decode("utf-8") if mapping is not None else None
    got = undertone.import_conversations(case["format"], text, mapping=mapping_text)
    assert got == read_json(GOLDEN / f"{case['format']}.json")


def test_bytes_on_their_own_are_named_input() -> None:
    expected = read_json(GOLDEN / "chatgpt.json")
    got = undertone.import_conversations("chatgpt", CHATGPT)
    assert got["request"] == expected["request"]
    assert [s["at"] for s in got["skipped"]] == [
        s["at"].replace("conversations.json", "input", 1) for s in expected["skipped"]
    ]
    assert all(s["at"].startswith("input[") for s in got["skipped"])
    assert undertone.import_conversations("chatgpt", bytearray(CHATGPT)) == got  # type: ignore[arg-type]


def test_a_path_to_a_file_is_named_as_given() -> None:
    expected = read_json(GOLDEN / "chatgpt.json")
    path = FIXTURES / "chatgpt" / "conversations.json"
    for given in (str(path), path):
        got = undertone.import_conversations("chatgpt", given)
        assert got["request"] == expected["request"]
        assert got["skipped"] and got["skipped"][0]["at"].startswith(str(path))
        assert [s["at"] for s in got["skipped"]] == [
            s["at"].replace("conversations.json", str(path), 1) for s in expected["skipped"]
        ]


def test_a_path_to_a_folder_reads_every_file_under_it() -> None:
    expected = read_json(GOLDEN / "slack.json")
    folder = FIXTURES / "slack"
    assert undertone.import_conversations("slack", str(folder)) == expected
    assert undertone.import_conversations("slack", folder) == expected


def test_a_missing_path_is_file_not_found() -> None:
    missing = FIXTURES / "no-such-file.json"
    with pytest.raises(FileNotFoundError):
        undertone.import_conversations("chatgpt", str(missing))
    with pytest.raises(FileNotFoundError):
        undertone.import_conversations("chatgpt", missing)


def test_an_empty_folder_is_file_not_found(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError) as caught:
        undertone.import_conversations("slack", tmp_path)
    assert caught.value.filename == str(tmp_path)


def test_files_keep_their_order_and_names() -> None:
    one = undertone.import_conversations("chatgpt", {"a.json": CHATGPT})
    two = undertone.import_conversations("chatgpt", {"b.json": CHATGPT, "a.json": CHATGPT})
    n = len(one["request"]["events"])
    assert len(two["request"]["events"]) == 2 * n
    assert two["request"]["events"][:n] == one["request"]["events"]
    ats = [s["at"] for s in two["skipped"]]
    half = len(ats) // 2
    assert ats and all(a.startswith("b.json[") for a in ats[:half])
    assert all(a.startswith("a.json[") for a in ats[half:])


def test_deployment_id_overrides_the_formats_name() -> None:
    assert undertone.import_conversations("chatgpt", CHATGPT)["request"]["deployment_id"] == "chatgpt"
    got = undertone.import_conversations("chatgpt", CHATGPT, deployment_id="support-bot")
    assert got["request"]["deployment_id"] == "support-bot"
    assert got["request"]["events"] == read_json(GOLDEN / "chatgpt.json")["request"]["events"]


def test_the_request_scores() -> None:
    claude = (FIXTURES / "claude" / "conversations.json").read_bytes()
    request = undertone.import_conversations("claude", {"conversations.json": claude})["request"]
    result = undertone.score(request)
    assert result["intelligence"]["deployment_id"] == "claude"
    assert result["intelligence"]["event_count"] == len(request["events"])
    assert result["intelligence"]["human_turn_count"] > 0


def validation_error(*args: Any, **kwargs: Any) -> undertone.ValidationError:
    with pytest.raises(undertone.ValidationError) as caught:
        undertone.import_conversations(*args, **kwargs)
    error = caught.value
    assert error.code == "VALIDATION_ERROR"
    assert len(error.details) == 1
    assert str(error) == f"{error.details[0]['path']}: {error.details[0]['message']}"
    return error


def test_an_unknown_format_lists_the_formats() -> None:
    error = validation_error("zip", CHATGPT)
    assert error.details == [
        {
            "path": "format",
            "message": 'must be one of chatgpt, claude, zendesk, intercom, slack, mapping; got "zip"',
        }
    ]


def test_malformed_json_names_the_file() -> None:
    error = validation_error("chatgpt", {"x.json": "{"})
    assert error.details[0]["path"] == "x.json"
    assert error.details[0]["message"].startswith("is not JSON")


def test_the_mapping_format_needs_a_mapping() -> None:
    error = validation_error("mapping", CHATGPT)
    assert error.details[0]["path"] == "format"
    assert "mapping document" in error.details[0]["message"]


def test_a_mapping_is_refused_with_another_format() -> None:
    for mapping in ({"events": "/messages"}, '{"events": "/messages"}', b"{}"):
        error = validation_error("chatgpt", CHATGPT, mapping=mapping)
        assert error.details[0]["path"] == "mapping"
        assert error.details[0]["message"] == "a mapping is only read with the mapping format, not chatgpt"


@pytest.mark.parametrize(
    ("args", "kwargs", "path", "message"),
    [
        (("chatgpt", 42), {}, "files", "must be a path, bytes or a mapping of file names to str or bytes, got int"),
        (("chatgpt", ["[]"]), {}, "files", "must be a path, bytes or a mapping of file names to str or bytes, got list"),
        (("chatgpt", {"x.json": 1}), {}, "files.x.json", "must be str or bytes, got int"),
        (("chatgpt", {1: "[]"}), {}, "files", "must be a mapping with str names, got int"),
        (("chatgpt", CHATGPT), {"mapping": 3}, "mapping", "must be an object, JSON text or bytes, got number"),
        ((7, CHATGPT), {}, "format", "must be str, got int"),
        (("chatgpt", CHATGPT), {"deployment_id": 7}, "deployment_id", "must be a string, got number"),
    ],
)
def test_arguments_of_the_wrong_type_are_a_validation_error(
    args: tuple[Any, ...], kwargs: dict[str, Any], path: str, message: str
) -> None:
    error = validation_error(*args, **kwargs)
    assert error.code == "VALIDATION_ERROR"
    assert error.details == [{"path": path, "message": message}]


def test_a_value_with_no_json_form_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        undertone.import_conversations("mapping", CHATGPT, mapping={"when": object()})


def test_the_readme_example_runs_as_written() -> None:
    readme = (ROOT / "bindings-python" / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Connectors", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    expected = read_json(GOLDEN / "chatgpt.json")
    band = undertone.score(expected["request"])["intelligence"]["layer_z"]["frustration_buildup"]["band"]
    lines = [f"left out {s['at']}: {s['reason']}" for s in expected["skipped"]] + [band]
    assert out.splitlines() == lines
