"""Parity: the Python package returns byte for byte (canonical JSON) what the Rust
core and `undertone score` / `undertone drift` give, on the shared vectors in
tests/vectors, and raises the same errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import undertone

from conftest import ROOT, canonical, read_json

VECTORS = ROOT / "tests" / "vectors"
SCORE = sorted(VECTORS.glob("*.json"))
INVALID = sorted((VECTORS / "invalid").glob("*.json"))
DRIFT = sorted((VECTORS / "drift").glob("*.json"))


def test_there_are_vectors() -> None:
    assert len(SCORE) >= 6 and len(INVALID) >= 8 and len(DRIFT) >= 1


@pytest.mark.parametrize("path", SCORE, ids=lambda p: p.stem)
def test_score_matches_golden_output(path: Path) -> None:
    vector = read_json(path)
    assert canonical(undertone.score(vector["input"])) == canonical(vector["output"])


@pytest.mark.parametrize("path", SCORE[:2], ids=lambda p: p.stem)
def test_score_of_a_path_and_of_bytes_match_too(path: Path, tmp_path: Path) -> None:
    vector = read_json(path)
    file = tmp_path / "input.json"
    file.write_text(canonical(vector["input"]), encoding="utf-8")
    assert canonical(undertone.score(file)) == canonical(vector["output"])
    assert canonical(undertone.score(str(file))) == canonical(vector["output"])
    assert canonical(undertone.score(file.read_bytes())) == canonical(vector["output"])


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_input_raises_the_vectors_error(path: Path) -> None:
    vector = read_json(path)
    with pytest.raises(undertone.UndertoneError) as caught:
        undertone.score(vector["input"], **vector["options"])
    error = caught.value
    assert isinstance(error, undertone.ValidationError)
    assert error.code == vector["error"]["code"]
    assert str(error) == vector["error"]["message"]
    assert error.details == vector["error"]["details"]


@pytest.mark.parametrize("path", DRIFT, ids=lambda p: p.stem)
def test_drift_matches_golden_result(path: Path) -> None:
    vector = read_json(path)
    o = vector["options"]
    before, after = ROOT / vector["before"], ROOT / vector["after"]
    kwargs = {"question": o.get("question"), "before_label": o["before_label"], "after_label": o["after_label"]}
    expected = canonical(vector["output"])
    assert canonical(undertone.drift(read_json(before), read_json(after), **kwargs)) == expected
    assert canonical(undertone.drift(before, after, **kwargs)) == expected


def test_drift_labels_default_to_file_names() -> None:
    result = undertone.drift(ROOT / "examples/drift-v1.json", ROOT / "examples/drift-v2.json")
    assert (result["before"]["label"], result["after"]["label"]) == ("drift-v1", "drift-v2")
    result = undertone.drift(read_json(ROOT / "examples/drift-v1.json"), read_json(ROOT / "examples/drift-v2.json"))
    assert (result["before"]["label"], result["after"]["label"]) == ("before", "after")
