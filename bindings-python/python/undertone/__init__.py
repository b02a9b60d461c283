"""Undertone: score the human side of AI conversations.

Local scoring runs the same Rust core as the Undertone server and the ``undertone``
command line, so ``score`` returns exactly what ``undertone score FILE`` prints::

    import undertone
    result = undertone.score("examples/support-refund-goes-wrong.json")
    print(result["intelligence"]["layer_z"]["frustration_buildup"]["band"])

``import_conversations`` reads the files people already have (a ChatGPT or Claude
export, …) into an ingest request that ``score`` takes.

``Client`` talks to a server (``undertone.client``). This module only converts
Python values for the Rust core, which reads, validates, scores and checks options.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import sys
import os
import time
from collections.abc import Iterable, Mapping
from typing import Any, Literal, Optional, Union, cast, overload

from . import _native
from ._native import DEFAULT_TOLERANCE_SECS, SCORER_VERSION, UndertoneError, ValidationError
from .client import ApiError, AsyncClient, Client, RateLimit, SessionFailed, WaitTimeout

__all__ = [
    "DEFAULT_TOLERANCE_SECS",
    "SCORER_VERSION",
    "ApiError",
    "AsyncClient",
    "Client",
    "Files",
    "Input",
    "RateLimit",
    "SessionFailed",
    "UndertoneError",
    "ValidationError",
    "WaitTimeout",
    "drift",
    "import_conversations",
    "score",
    "validate",
    "verify_signature",
    "webhooks",
]

Input = Union[Mapping[str, Any], Iterable[Mapping[str, Any]], str, "os.PathLike[str]", bytes]
"""An ingest request (dict), a list of event dicts, a path to a JSON / JSON Lines
file, or the bytes of such a file."""


Files = Union[str, "os.PathLike[str]", bytes, Mapping[str, Union[str, bytes]]]
"""A connector's input, as ``import_conversations`` describes it."""


def _encode(value: Any) -> Any:
    """JSON for values ``json`` cannot write: datetimes become ISO 8601 text (a naive
    one has no UTC offset, which the input contract refuses), and any other
    ``Mapping`` (a ``MappingProxyType``, a custom one) an object, as a ``dict`` is."""
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _read(value: Input) -> Union[str, bytes]:
    """A path as ``str`` (the core reads it), bytes as they are, anything else as the
    bytes of its JSON."""
    if isinstance(value, (str, os.PathLike)):
        return os.fsdecode(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if not isinstance(value, (Mapping, list, tuple)) and isinstance(value, Iterable):
        value = list(value)  # a generator of events
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=_encode)
    if not _is_text(text):
        # A lone surrogate: written as an escape, the core's reader says where it is.
        text = json.dumps(value, allow_nan=False, default=_encode)
    return text.encode("utf-8")


def _is_text(value: str) -> bool:
    """Whether ``value`` is text: no lone surrogate (U+D800 to U+DFFF), which a Python
    ``str`` may hold but UTF-8 cannot."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _options(**options: Any) -> str:
    """The options given (not ``None``) as JSON text, for the core to read and check.
    Raises ``ValidationError`` at an option whose ``str`` holds a lone surrogate, that
    holds a number JSON cannot write (NaN, infinity, past the largest float), or that
    nests too deeply: read as JSON, each would be another value, or an error at
    ``options`` that names no option."""
    given = {k: v for k, v in options.items() if v is not None}
    for name, value in given.items():
        if isinstance(value, str) and not _is_text(value):
            raise _native.lone_surrogate(name)
        _check_json(name, value)
    return json.dumps(given, default=_encode)


def _check_json(name: str, value: Any) -> None:
    """Raises the ``ValidationError`` at option ``name`` for a number in ``value`` that
    JSON cannot write, or for dicts and lists nested more than the core allows (as the
    JavaScript bindings check theirs)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise _invalid(name, f"must be a finite number, got {item}")
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) > sys.float_info.max:
            raise _native.too_large_number(name)
        if isinstance(item, (Mapping, list, tuple)):
            if depth >= _native.OPTION_NESTING_MAX:
                raise _native.too_nested(name)
            children = item.values() if isinstance(item, Mapping) else item
            stack.extend((child, depth + 1) for child in children)


def _invalid(path: str, message: str) -> ValidationError:
    """The ``ValidationError`` of one violation, as the core raises them."""
    error = ValidationError(f"{path}: {message}")
    error.code = "VALIDATION_ERROR"
    error.details = [{"path": path, "message": message}]
    return error


def _wrong_type(path: str, expected: str, value: Any) -> ValidationError:
    """The ``ValidationError`` for ``value`` at ``path``, which should be ``expected``."""
    return _invalid(path, f"must be {expected}, got {type(value).__name__}")


def _seconds(now: Any) -> Any:
    """``verify_signature``'s ``now`` for the core: a finite float floored to whole
    seconds. Any other value but NaN and infinity goes as it is, and the core names
    ``now`` when it is not a whole number."""
    if isinstance(now, float):
        if not math.isfinite(now):
            raise _invalid("now", f"must be a finite number, got {now}")
        return math.floor(now)
    return now


def _text(value: Any, path: str) -> str:
    """A ``str`` argument, or the ``ValidationError`` at ``path`` for another type or a
    lone surrogate."""
    if not isinstance(value, str):
        raise _wrong_type(path, "a str", value)
    if not _is_text(value):
        raise _native.lone_surrogate(path)
    return value


def _header_pairs(headers: Any) -> list[tuple[str, str]]:
    """``verify_signature``'s headers as (name, value) pairs, as the JavaScript bindings
    read theirs: a mapping's items or an iterable's pairs, in order; a list or tuple
    value (a repeated header) is one pair per value, and ``None`` is no header."""
    expected = "a mapping of header names to values, or an iterable of (name, value) pairs"
    if isinstance(headers, Mapping):
        pairs: Iterable[Any] = headers.items()
    elif isinstance(headers, Iterable) and not isinstance(headers, (str, bytes, bytearray)):
        pairs = headers
    else:
        raise _wrong_type("headers", expected, headers)
    out = []
    for pair in pairs:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise _wrong_type("headers", "(name, value) pairs", pair)
        name = _text(pair[0], "headers")
        value = pair[1]
        values = value if isinstance(value, (list, tuple)) else [] if value is None else [value]
        for one in values:
            if not isinstance(one, str):
                raise _wrong_type(f"headers.{name}", "a str or a list of str", one)
            out.append((name, _text(one, f"headers.{name}")))
    return out


def _object(text: str) -> dict[str, Any]:
    """The core's JSON result as a dict."""
    return cast(dict[str, Any], json.loads(text))


@overload
def score(
    events_or_request: Input,
    *,
    deployment_id: Optional[str] = None,
    pipeline: Optional[str] = None,
    view: Literal["full", "condensed"] = "full",
    format: str = "auto",
) -> dict[str, Any]: ...


@overload
def score(
    events_or_request: Input,
    *,
    deployment_id: Optional[str] = None,
    pipeline: Optional[str] = None,
    view: Literal["turns"],
    format: str = "auto",
) -> list[dict[str, Any]]: ...


def score(
    events_or_request: Input,
    *,
    deployment_id: Optional[str] = None,
    pipeline: Optional[str] = None,
    view: str = "full",
    format: str = "auto",
) -> Union[dict[str, Any], list[dict[str, Any]]]:
    """Scores every human turn of a conversation set.

    ``events_or_request`` is an ingest request ``{"deployment_id", "events", ...}``, a
    list of event dicts (then ``deployment_id`` is required), a path to a JSON or JSON
    Lines file, or such a file's bytes. ``pipeline`` (``auto``, ``support``,
    ``reviews``) overrides the request's own; ``view="condensed"`` returns the short
    view, ``view="turns"`` a list of flat rows, one per human turn (``deployment_id``,
    ``conversation_id``, ``turn``, ``actor_id``, ``timestamp``, each dimension's score
    and ``<dimension>_band``: what ``undertone score --view turns`` prints). ``format``
    (``auto``, ``json``, ``jsonl``) says how a file is laid out.

    Returns ``{"pipeline", "intelligence"}`` (or the condensed view, or the rows).
    Raises ``ValidationError`` (``.code == "VALIDATION_ERROR"``, ``.details`` lists
    every violation) for input that breaks the contract. The GIL is released while
    scoring.
    """
    options = _options(deployment_id=deployment_id, pipeline=pipeline, view=view, format=format)
    result: Union[dict[str, Any], list[dict[str, Any]]] = json.loads(
        _native.score(_read(events_or_request), options)
    )
    return result


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
    options = _options(deployment_id=deployment_id, format=format)
    return _object(_native.validate(_read(events_or_request), options))


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
    options = _options(
        question=question,
        deployment_id=deployment_id,
        before_label=before_label,
        after_label=after_label,
        format=format,
    )
    return _object(_native.drift(_read(before), _read(after), options))


def import_conversations(
    format: str,
    files: Files,
    *,
    mapping: Union[str, bytes, Mapping[str, Any], None] = None,
    deployment_id: Optional[str] = None,
) -> dict[str, Any]:
    """Reads a conversation export into an ingest request, as ``undertone import`` does.

    ``format`` is one of ``chatgpt``, ``claude``, ``zendesk``, ``intercom``,
    ``slack`` or ``mapping``. ``files`` is a path (``str`` or ``os.PathLike``) to a
    file, named by the path as given, or to a folder (e.g. an unzipped Slack export),
    whose every file is read, named by its path relative to the folder with ``/``
    between parts, in name order, as ``undertone import`` reads them; or one file's
    ``bytes``, named ``input``; or a mapping of file names to contents (``str`` text
    or ``bytes``), read in order. ``mapping`` is the mapping document (a dict, or its
    JSON text or bytes) that the ``mapping`` format needs and every other format
    refuses. ``deployment_id`` defaults to the format's name.

    Returns ``{"request": {"deployment_id", "events"}, "skipped": [{"at", "reason"}]}``;
    ``request`` is what ``score`` takes. Raises ``ValidationError`` naming the file
    and the position for input not in the format, ``OSError`` (e.g.
    ``FileNotFoundError``) for a path that cannot be read or an empty folder, and
    ``ValidationError`` naming the argument or option of the wrong type (``TypeError``
    for a value with no JSON form). The GIL is released while importing.
    """
    if isinstance(files, os.PathLike):
        files = os.fsdecode(files)
    elif isinstance(files, (bytearray, memoryview)):
        files = bytes(files)
    raw = bytes(mapping) if isinstance(mapping, (bytes, bytearray, memoryview)) else None
    options = _options(deployment_id=deployment_id, mapping=None if raw is not None else mapping)
    return _object(_native.import_conversations(format, files, options, raw))


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
    ``now`` is in unix seconds; a float (as ``time.time()`` returns) is floored to
    whole seconds, as the clock is. A header given as a list or tuple (a repeated
    header) is one value each, and a value of ``None`` is no header. Raises
    ``ValidationError`` at the argument (``secret``, ``body``, ``headers.<name>``,
    ``now``) for a value of the wrong type, a ``str`` with a lone surrogate, or a
    ``now`` that is not a finite number.
    """
    secret = _text(secret, "secret")
    if isinstance(body, str):
        body = _text(body, "body").encode("utf-8")
    elif not isinstance(body, (bytes, bytearray, memoryview)):
        raise _wrong_type("body", "bytes or a str", body)
    items = _header_pairs(headers)
    options = _options(tolerance_secs=tolerance_secs, now=_seconds(now))
    return _native.verify_signature(secret, bytes(body), items, options, int(time.time()))


# Last: `undertone.webhooks` wraps `verify_signature`, defined above.
from . import webhooks  # noqa: E402
