"""The REST client of an Undertone server (``undertone.Client``), over the client
generated from ``spec/openapi.json`` (``undertone.rest``)."""

from __future__ import annotations

from typing import Any

from .rest.client import AuthenticatedClient


class Client(AuthenticatedClient):
    """A REST client of an Undertone server, authenticated with an API key.

    Pass it to the generated operations in ``undertone.rest.api``, e.g.
    ``undertone.rest.api.sessions.ingest.sync(client=client, body=...)``.
    """

    def __init__(self, base_url: str, api_key: str, **kwargs: Any) -> None:
        super().__init__(base_url=base_url, token=api_key, **kwargs)
