"""Receiving Undertone webhooks: check a delivery's signature and read its id.

A receiver verifies the raw body before parsing it (re-serialised JSON is not the same
bytes), deduplicates on the delivery id (a delivery may arrive again after a crash),
and answers 2xx fast, handling the event afterwards (docs/webhooks.md)::

    from undertone import webhooks
    if not webhooks.verify(body, headers, secret):
        ...  # answer 401
    if webhooks.delivery_id(headers) in seen:
        ...  # answer 2xx, do nothing
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Optional, Union

from . import DEFAULT_TOLERANCE_SECS, _header_pairs, verify_signature

__all__ = ["DELIVERY_HEADERS", "Headers", "delivery_id", "verify"]

Headers = Union[Mapping[str, str], Iterable[tuple[str, str]]]
"""A delivery's headers: any mapping (a dict, a framework's) or (name, value) pairs."""

DELIVERY_HEADERS = ("X-Undertone-Delivery", "webhook-id")
"""Headers that carry the delivery id, in the order ``delivery_id`` reads them: Undertone's
own, then the Standard Webhooks one (the same value on a delivery from Undertone)."""


def verify(
    body: Union[bytes, str],
    headers: Headers,
    secret: str,
    *,
    tolerance_secs: int = DEFAULT_TOLERANCE_SECS,
    now: Optional[float] = None,
) -> bool:
    """Whether a delivery is signed by Undertone with ``secret``: ``undertone.verify_signature``
    with the arguments in the order a request handler has them.

    Returns ``False`` for a missing, wrong or stale signature (answer 401); never
    raises for one. ``body`` is the raw request body. Every scheme present must
    verify: ``X-Undertone-Signature`` and the Standard Webhooks headers, whose
    timestamp must be within ``tolerance_secs`` of ``now`` (default: the clock).
    """
    return verify_signature(secret, body, headers, tolerance_secs=tolerance_secs, now=now)


def delivery_id(headers: Headers) -> Optional[str]:
    """The delivery id to deduplicate on: ``X-Undertone-Delivery``, else ``webhook-id``
    (names in any case), or ``None`` when neither is present. The headers are read as
    ``verify`` reads them (a repeated header's last value); ``ValidationError`` at
    ``headers`` for what is no headers."""
    found = {name.lower(): value for name, value in _header_pairs(headers)}
    for name in DELIVERY_HEADERS:
        if value := found.get(name.lower()):
            return value
    return None
