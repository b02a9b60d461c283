"""The Python surface: input forms, options, errors, the GIL, and the examples."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import threading
import time
import types
from pathlib import Path

import pytest
import undertone

from conftest import ROOT, canonical, read_json

EXAMPLE = ROOT / "examples" / "support-refund-goes-wrong.json"


def events() -> list[dict]:
    return read_json(EXAMPLE)["events"]


def test_a_list_of_events_needs_a_deployment_id() -> None:
    with pytest.raises(undertone.ValidationError) as caught:
        undertone.score(events())
    assert caught.value.details[0]["path"] == "deployment_id"
    assert caught.value.details[0]["message"].startswith("is required")
    request = read_json(EXAMPLE)
    by_list = undertone.score(events(), deployment_id=request["deployment_id"], pipeline=request["pipeline"])
    assert canonical(by_list) == canonical(undertone.score(request))
    by_generator = undertone.score((e for e in events()), deployment_id=request["deployment_id"])
    assert by_generator["intelligence"]["pipeline_source"] == "detected"
    assert by_generator["intelligence"]["layer_z"] == by_list["intelligence"]["layer_z"]


def test_json_lines_bytes_and_files(tmp_path: Path) -> None:
    request = read_json(EXAMPLE)
    lines = "\n".join(json.dumps(e) for e in request["events"]) + "\n"
    expected = canonical(undertone.score(request))
    options = {"deployment_id": request["deployment_id"], "pipeline": request["pipeline"]}
    assert canonical(undertone.score(lines.encode(), **options)) == expected
    file = tmp_path / "events.jsonl"
    file.write_text(lines)
    assert canonical(undertone.score(file, **options)) == expected


def test_datetimes_are_written_as_iso_8601() -> None:
    aware = dt.datetime(2026, 11, 21, 9, 30, tzinfo=dt.timezone.utc)
    evs = [
        {"actor_id": "u", "content": "my order is late, again", "timestamp": aware},
        {"actor_id": "bot", "content": "Sorry! It ships today.", "timestamp": aware + dt.timedelta(seconds=5)},
    ]
    out = undertone.validate(evs, deployment_id="bot")
    assert out["events"][0]["timestamp"] == "2026-11-21T09:30:00Z"
    naive = [dict(evs[0], timestamp=dt.datetime(2026, 11, 21, 9, 30))]
    with pytest.raises(undertone.ValidationError) as caught:
        undertone.validate(naive, deployment_id="bot")
    assert caught.value.details[0]["path"] == "events[0].timestamp"


def test_pipeline_and_view_options() -> None:
    request = read_json(EXAMPLE)
    assert undertone.score(request)["pipeline"] == "support"
    assert undertone.score(request, pipeline="reviews")["pipeline"] == "reviews"
    condensed = undertone.score(request, view="condensed")
    assert set(condensed) == {"session_id", "archetype", "layer_z", "key_finding", "falsifiable", "recommendation"}
    assert condensed["layer_z"] == undertone.score(request)["intelligence"]["layer_z"]
    with pytest.raises(undertone.ValidationError) as caught:
        undertone.score(request, format="csv")
    assert caught.value.details == [{"path": "format", "message": 'must be one of auto, json, jsonl; got "csv"'}]


def test_validate_returns_the_request_as_scoring_reads_it() -> None:
    out = undertone.validate(EXAMPLE)
    request = read_json(EXAMPLE)
    assert out["deployment_id"] == request["deployment_id"]
    assert out["pipeline"] == request["pipeline"] == "support"
    assert undertone.validate(request["events"], deployment_id="bot")["pipeline"] == "auto"
    assert len(out["events"]) == len(request["events"])
    assert all(e["timestamp"].endswith("Z") for e in out["events"])


def test_missing_file_is_an_os_error() -> None:
    with pytest.raises(FileNotFoundError):
        undertone.score(ROOT / "no-such-file.json")


def test_json_text_passed_as_a_path_says_so_briefly() -> None:
    # A str is a path; JSON text given instead is named in part, once, with what to do
    # (the system refuses so long a name: ENAMETOOLONG, not FileNotFoundError).
    text = EXAMPLE.read_text()
    with pytest.raises(OSError) as caught:
        undertone.score(text)
    message = str(caught.value)
    assert len(message) < 2 * 400, message
    assert "looks like JSON text: pass the parsed value, or the text as bytes" in message
    assert caught.value.filename == text[:120] + "…"
    assert undertone.score(text.encode())["intelligence"]["human_turn_count"] == 11


def test_unserialisable_values_are_a_type_error() -> None:
    with pytest.raises(TypeError):
        undertone.score({"deployment_id": "x", "events": [{"actor_id": object()}]})


def test_any_mapping_reads_as_the_dict_it_holds() -> None:
    request = read_json(EXAMPLE)
    frozen = types.MappingProxyType(
        {
            **request,
            "events": [types.MappingProxyType(e) for e in request["events"]],
        }
    )
    assert undertone.score(frozen) == undertone.score(request)
    assert undertone.validate(frozen) == undertone.validate(request)


def test_scoring_releases_the_gil() -> None:
    # 300 copies of the example's conversations: long enough to take a while.
    request = read_json(EXAMPLE)
    big = []
    for i in range(300):
        for e in request["events"]:
            meta = dict(e.get("metadata") or {})
            big.append(dict(e, conversation_id=f"{e.get('conversation_id', 'c')}-{i}", metadata=meta))
    ticks = 0
    stop = threading.Event()

    def spin() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.05)
    start_ticks = ticks
    started = time.perf_counter()
    result = undertone.score(big, deployment_id=request["deployment_id"])
    elapsed = time.perf_counter() - started
    during = ticks - start_ticks
    stop.set()
    t.join()
    assert result["intelligence"]["conversation_count"] >= 300
    # Held GIL: the spinning thread could not run at all while Rust scored.
    assert during > 1000, f"{during} ticks in {elapsed:.3f}s of scoring"


def test_examples_run_as_written() -> None:
    out = subprocess.run(
        [sys.executable, "examples/python/score_local.py", "examples/support-refund-goes-wrong.json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    result = undertone.score(EXAMPLE)
    first = result["intelligence"]["conversations"][0]
    band = first["layer_z"]["frustration_buildup"]["band"]
    assert f"{first['conversation_id']}: frustration {band}" in out
    assert f"{result['intelligence']['human_turn_count']} human turns" in out


def test_an_option_of_the_wrong_type_is_a_validation_error_at_its_name() -> None:
    request = read_json(EXAMPLE)
    with pytest.raises(undertone.ValidationError) as caught:
        undertone.score(request, view=3)  # type: ignore[arg-type]
    assert caught.value.details == [{"path": "view", "message": "must be a string, got number"}]
    with pytest.raises(undertone.ValidationError) as caught:
        undertone.drift(request, request, before_label=["v1"])  # type: ignore[arg-type]
    assert caught.value.details == [{"path": "before_label", "message": "must be a string, got array"}]
    with pytest.raises(undertone.ValidationError) as caught:
        undertone.verify_signature("s", b"", {}, tolerance_secs=0.5)  # type: ignore[arg-type]
    assert caught.value.details[0]["path"] == "tolerance_secs"


LONE = (
    "holds half of a UTF-16 surrogate pair (U+D800 to U+DFFF) on its own, which is no character; "
    "it cannot be read as text"
)


@pytest.mark.parametrize(
    ("call", "path"),
    [
        (lambda: undertone.score(events(), deployment_id="bot\ud800"), "deployment_id"),
        (lambda: undertone.drift(EXAMPLE, EXAMPLE, after_label="\udc00v2"), "after_label"),
        (lambda: undertone.score("events\udfff.json"), "events_or_request"),
        (lambda: undertone.import_conversations("chatgpt\ud800", b"[]"), "format"),
        (lambda: undertone.import_conversations("chatgpt", {"a.json": "[\ud800]"}), "files.a.json"),
    ],
)
def test_a_lone_surrogate_in_a_str_is_a_validation_error_at_its_name(call: object, path: str) -> None:
    # A str may hold one; UTF-8 cannot, and U+FFFD in its place would be another id.
    with pytest.raises(undertone.ValidationError) as caught:
        call()  # type: ignore[operator]
    assert caught.value.details == [{"path": path, "message": LONE}]


def test_a_lone_surrogate_inside_an_event_is_named_by_the_json_reader() -> None:
    broken = [dict(events()[0], content="hi \ud800")]
    with pytest.raises(undertone.ValidationError) as caught:
        undertone.score(broken, deployment_id="bot")
    assert "half a surrogate pair" in caught.value.details[0]["message"]
    # A real U+FFFD and a whole character beyond the BMP are text.
    fine = undertone.score(events(), deployment_id="bot\ufffd\U0001f600")
    assert fine["intelligence"]["deployment_id"] == "bot\ufffd\U0001f600"


def test_a_whole_character_beyond_the_bmp_in_an_option_is_not_called_a_surrogate() -> None:
    # json.dumps escapes 🤖 as a whole surrogate pair: that is text. The NaN is the error.
    with pytest.raises(undertone.ValidationError) as caught:
        undertone.import_conversations("mapping", b"[]", mapping={"roles": {"🤖": "ai"}, "x": float("nan")})
    message = caught.value.details[0]["message"]
    assert "surrogate" not in message, message
    # Named at the option that holds it.
    assert caught.value.details[0] == {"path": "mapping", "message": "must be a finite number, got nan"}


def test_a_file_name_that_is_not_utf8_is_read(tmp_path: Path) -> None:
    # os.fsdecode turns the byte 0xe9 of a Latin-1 file name into a lone surrogate;
    # the path still names the file.
    name = os.fsdecode(b"caf\xe9.json")
    (tmp_path / name).write_bytes(EXAMPLE.read_bytes())
    result = undertone.score(tmp_path / name)
    assert result["intelligence"]["human_turn_count"] == undertone.score(EXAMPLE)["intelligence"]["human_turn_count"]


def test_an_option_json_cannot_hold_is_refused_at_its_name() -> None:
    import undertone

    deep: object = "x"
    for _ in range(64):
        deep = [deep]
    cases: list[tuple[dict[str, object], str, str]] = [
        ({"deployment_id": float("inf")}, "deployment_id", "must be a finite number, got inf"),
        ({"deployment_id": 10**400}, "deployment_id", "holds a number too large to read: numbers "
         "must fit a 64-bit float (up to about 1.8e308); send a longer number as a string"),
        ({"deployment_id": [deep]}, "deployment_id", "is nested too deeply: more than 64 arrays "
         "and objects inside each other (or an object that holds itself)"),
        ({"deployment_id": deep}, "deployment_id", "must be a string, got array"),
    ]
    for options, path, message in cases:
        try:
            undertone.score([], **options)  # type: ignore[arg-type]
        except undertone.ValidationError as e:
            assert e.details == [{"path": path, "message": message}], options
        else:
            raise AssertionError(f"{options} was accepted")
    mapping = {"conversation": "/c", "role": "/r", "content": "/t", "timestamp": float("nan")}
    try:
        undertone.import_conversations("mapping", b"[]", mapping=mapping)
    except undertone.ValidationError as e:
        assert e.details == [{"path": "mapping", "message": "must be a finite number, got nan"}]
    else:
        raise AssertionError("a mapping holding NaN was accepted")


def test_no_files_is_refused_at_files() -> None:
    import undertone

    try:
        undertone.import_conversations("chatgpt", {})
    except undertone.ValidationError as e:
        assert e.details == [
            {"path": "files", "message": "holds no file: give an export file, a folder or one file's contents"}
        ]
    else:
        raise AssertionError("no files were accepted")


def test_a_file_name_with_a_lone_surrogate_is_said_to_be_one() -> None:
    import undertone

    try:
        undertone.import_conversations("chatgpt", {"a\ud800.json": "[]"})
    except undertone.ValidationError as e:
        assert e.details == [
            {
                "path": "files",
                "message": "holds half of a UTF-16 surrogate pair (U+D800 to U+DFFF) on its own, "
                "which is no character; it cannot be read as text",
            }
        ]
    else:
        raise AssertionError("the name was accepted")
