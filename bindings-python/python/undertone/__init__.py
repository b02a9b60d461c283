"""Undertone: score the human side of AI conversations.

Local scoring runs the same Rust core as the Undertone server and the ``undertone``
command line, so ``score`` returns exactly what ``undertone score FILE`` prints::

    import undertone
    result = undertone.score("examples/support-refund-goes-wrong.json")
    print(result["intelligence"]["layer_z"]["frustration_buildup"]["band"])

``Client`` talks to a server through the REST client generated from
``spec/openapi.json`` (``undertone.rest``).

This module only converts Python values to the core's input bytes and its JSON
results back to Python; reading, validation, scoring and statistics all live in the
Rust core.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from collections.abc import Iterable, Mapping
from typing import Any, Optional, Union

from . import _native
from ._native import DEFAULT_TOLERANCE_SECS, SCORER_VERSION, UndertoneError, ValidationError
from .rest.client import AuthenticatedClient

__all__ = [
    "DEFAULT_TOLERANCE_SECS",
    "SCORER_VERSION",
    "Client",
    "Input",
    "UndertoneError",
    "ValidationError",
    "drift",
    "score",
    "validate",
    "verify_signature",
]

Input = Union[Mapping[str, Any], Iterable[Mapping[str, Any]], str, "os.PathLike[str]", bytes]
"""An ingest request (dict), a list of event dicts, a path to a JSON / JSON Lines
file, or the bytes of such a file."""


def _encode(value: Any) -> Any:
    """JSON for values ``json`` cannot write: datetimes become ISO 8601 text (a naive
    one has no UTC offset, which the input contract refuses)."""
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _read(value: Input) -> tuple[bytes, Optional[str]]:
    """The input's bytes, and its file name when it is a path."""
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        with open(path, "rb") as f:
            return f.read(), path
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value), None
    if not isinstance(value, (Mapping, list, tuple)) and isinstance(value, Iterable):
        value = list(value)  # a generator of events
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=_encode)
    return text.encode("utf-8"), None


def _object(text: str) -> dict[str, Any]:
    """The core's JSON result as a dict."""
    result: dict[str, Any] = json.loads(text)
    return result


def score(
    events_or_request: Input,
    *,
    deployment_id: Optional[str] = None,
    pipeline: Optional[str] = None,
    view: str = "full",
    format: str = "auto",
) -> dict[str, Any]:
    """Scores every human turn of a conversation set.

    ``events_or_request`` is an ingest request ``{"deployment_id", "events", ...}``, a
    list of event dicts (then ``deployment_id`` is required), a path to a JSON or JSON
    Lines file, or such a file's bytes. ``pipeline`` (``auto``, ``support``,
    ``reviews``) overrides the request's own; ``view="condensed"`` returns the short
    view. ``format`` (``auto``, ``json``, ``jsonl``) says how a file is laid out.

    Returns ``{"pipeline", "intelligence"}`` (or the condensed view). Raises
    ``ValidationError`` (``.code == "VALIDATION_ERROR"``, ``.details`` lists every
    violation) for input that breaks the contract. The GIL is released while scoring.
    """
    data, name = _read(events_or_request)
    text = _native.score(
        data,
        name=name,
        format=format,
        deployment_id=deployment_id,
        pipeline=pipeline,
        view=view,
    )
    return _object(text)


def validate(
    events_or_request: Input,
    *,
    deployment_id: Optional[str] = None,
    format: str = "auto",
) -> dict[str, Any]:
    """Checks an input against the input contract without scoring it.

    Returns the request as scoring reads it (timestamps in UTC, content trimmed,
    ``pipeline`` filled in); raises ``ValidationError`` like ``score``.
    """
    data, name = _read(events_or_request)
    text = _native.validate(data, name=name, format=format, deployment_id=deployment_id)
    return _object(text)


def drift(
    before: Input,
    after: Input,
    *,
    question: Optional[str] = None,
    deployment_id: Optional[str] = None,
    before_label: Optional[str] = None,
    after_label: Optional[str] = None,
    format: str = "auto",
) -> dict[str, Any]:
    """Scores two periods (e.g. two model versions) and tests each dimension for a
    significant change (Mann-Whitney U, Hodges-Lehmann shift, Holm-adjusted).

    Inputs are as for ``score``. Labels default to the file names without extension,
    else ``before`` and ``after``. Returns exactly what ``undertone drift`` prints.
    """
    before_data, before_name = _read(before)
    after_data, after_name = _read(after)
    text = _native.drift(
        before_data,
        after_data,
        before_name=before_name,
        after_name=after_name,
        format=format,
        deployment_id=deployment_id,
        question=question,
        before_label=before_label,
        after_label=after_label,
    )
    return _object(text)


def verify_signature(
    secret: str,
    body: Union[bytes, str],
    headers: Union[Mapping[str, str], Iterable[tuple[str, str]]],
    *,
    tolerance_secs: int = DEFAULT_TOLERANCE_SECS,
    now: Optional[float] = None,
) -> bool:
    """Whether a webhook delivery is signed by Undertone with ``secret``.

    ``body`` is the raw request body; ``headers`` any mapping (``http.server``'s,
    a dict, a framework's) or (name, value) pairs. Every signature scheme present
    must verify: ``X-Undertone-Signature`` and the Standard Webhooks headers, whose
    timestamp must be within ``tolerance_secs`` of ``now`` (default: the clock).
    """
    if isinstance(body, str):
        body = body.encode("utf-8")
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    items = [(str(k), str(v)) for k, v in pairs]
    clock = time.time() if now is None else now
    return _native.verify_signature(
        secret, bytes(body), items, now=int(clock), tolerance_secs=int(tolerance_secs)
    )


class Client(AuthenticatedClient):
    """A REST client of an Undertone server, authenticated with an API key.

    Pass it to the generated operations in ``undertone.rest.api``, e.g.
    ``undertone.rest.api.sessions.ingest.sync(client=client, body=...)``.
    """

    def __init__(self, base_url: str, api_key: str, **kwargs: Any) -> None:
        super().__init__(base_url=base_url, token=api_key, **kwargs)
