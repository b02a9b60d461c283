"""Undertone: score the human side of AI conversations.

Local scoring runs the same Rust core as the Undertone server and the ``undertone``
command line, so ``score`` returns exactly what ``undertone score FILE`` prints::

    import undertone
    result = undertone.score("examples/support-refund-goes-wrong.json")
    print(result["intelligence"]["layer_z"]["frustration_buildup"]["band"])

``import_conversations`` reads the files people already have (a ChatGPT or Claude
export, …) into an ingest request that ``score`` takes.

``Client`` talks to a server through the REST client generated from
``spec/openapi.json`` (``undertone.rest``).

This module only converts Python values to the core's input bytes and its JSON
results back to Python; reading, validation, scoring and statistics all live in the
Rust core.
"""

from __future__ import annotations

import datetime as _dt
import errno
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
    "Files",
    "Input",
    "UndertoneError",
    "ValidationError",
    "drift",
    "import_conversations",
    "score",
    "validate",
    "verify_signature",
]

Input = Union[Mapping[str, Any], Iterable[Mapping[str, Any]], str, "os.PathLike[str]", bytes]
"""An ingest request (dict), a list of event dicts, a path to a JSON / JSON Lines
file, or the bytes of such a file."""


Files = Union[str, "os.PathLike[str]", bytes, Mapping[str, Union[str, bytes]]]
"""A connector's input: a path to a file (named by the path as given) or a folder
(every file under it, named by its path relative to the folder), one file's bytes
(named ``input``), or a mapping of file names to contents, ``str`` text or ``bytes``
(the names errors and skipped items use)."""


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


def _contents(value: object, what: str) -> bytes:
    """A file's contents as bytes (text as UTF-8)."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be str or bytes, got {type(value).__name__}")


def _walk(folder: str, prefix: str, out: list[tuple[str, bytes]]) -> None:
    """Every file under ``folder``, named ``prefix`` + its path relative to it."""
    with os.scandir(folder) as entries:
        for entry in entries:
            name = prefix + entry.name
            if entry.is_dir():
                _walk(entry.path, name + "/", out)
            else:
                with open(entry.path, "rb") as f:
                    out.append((name, f.read()))


def _read_path(path: str) -> list[tuple[str, bytes]]:
    """A file (named by ``path`` as given), or every file under a folder, named by its
    path relative to the folder with ``/`` between parts, in name order (as the CLI's
    ``undertone import`` reads them)."""
    if not os.path.isdir(path):
        with open(path, "rb") as f:
            return [(path, f.read())]
    out: list[tuple[str, bytes]] = []
    _walk(path, "", out)
    if not out:
        raise FileNotFoundError(errno.ENOENT, "is an empty folder", path)
    out.sort(key=lambda pair: pair[0].encode("utf-8", "surrogateescape"))
    return out


def _files(files: Files) -> list[tuple[str, bytes]]:
    """``files`` as (name, contents) pairs, in the mapping's order."""
    if isinstance(files, Mapping):
        pairs = []
        for name, value in files.items():
            if not isinstance(name, str):
                raise TypeError(f"file names must be str, got {type(name).__name__}")
            pairs.append((name, _contents(value, f"files[{name!r}]")))
        return pairs
    if isinstance(files, (str, os.PathLike)):
        return _read_path(os.fsdecode(files))
    if isinstance(files, (bytes, bytearray, memoryview)):
        return [("input", bytes(files))]
    raise TypeError(
        "files must be a path, bytes or a mapping of file names to str or bytes, "
        f"got {type(files).__name__}"
    )


def _mapping(mapping: Union[str, bytes, Mapping[str, Any], None]) -> Optional[bytes]:
    """The mapping document's JSON bytes (a mapping is written as JSON)."""
    if mapping is None:
        return None
    if isinstance(mapping, Mapping):
        text = json.dumps(dict(mapping), ensure_ascii=False, allow_nan=False, default=_encode)
        return text.encode("utf-8")
    if isinstance(mapping, (str, bytes, bytearray, memoryview)):
        return _contents(mapping, "mapping")
    raise TypeError(f"mapping must be str, bytes or a mapping, got {type(mapping).__name__}")


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
    ``TypeError`` for arguments of the wrong type. The GIL is released while importing.
    """
    text = _native.import_conversations(
        format, _files(files), mapping=_mapping(mapping), deployment_id=deployment_id
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
