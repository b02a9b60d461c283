from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.ingest_accepted import IngestAccepted
from ...models.ingest_request import IngestRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: IngestRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/ingest",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | IngestAccepted | None:
    if response.status_code == 202:
        response_202 = IngestAccepted.from_dict(response.json())

        return response_202

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())

        return response_415

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorEnvelope.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | IngestAccepted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: IngestRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | IngestAccepted]:
    """Submit a conversation's events for scoring.

     The body is validated in full before anything is stored; on success the session,
    its events and its job are committed together, then 202 is returned. Poll
    `poll_url` until `status` is `complete` or `failed`.

    Args:
        idempotency_key (str | Unset):
        body (IngestRequest): The body of `POST /ingest` (SPEC.md §2.2). Example:
            {'deployment_id': 'acme-support-bot', 'events': [{'actor_id': 'cust-1', 'content': "My
            refund still hasn't arrived.", 'timestamp': '2026-11-21T09:30:00Z', 'conversation_id':
            'c-1'}, {'actor_id': 'acme-support-bot', 'content': 'Refunds take 5-7 days.', 'timestamp':
            '2026-11-21T09:30:04Z', 'conversation_id': 'c-1'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | IngestAccepted]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: IngestRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | IngestAccepted | None:
    """Submit a conversation's events for scoring.

     The body is validated in full before anything is stored; on success the session,
    its events and its job are committed together, then 202 is returned. Poll
    `poll_url` until `status` is `complete` or `failed`.

    Args:
        idempotency_key (str | Unset):
        body (IngestRequest): The body of `POST /ingest` (SPEC.md §2.2). Example:
            {'deployment_id': 'acme-support-bot', 'events': [{'actor_id': 'cust-1', 'content': "My
            refund still hasn't arrived.", 'timestamp': '2026-11-21T09:30:00Z', 'conversation_id':
            'c-1'}, {'actor_id': 'acme-support-bot', 'content': 'Refunds take 5-7 days.', 'timestamp':
            '2026-11-21T09:30:04Z', 'conversation_id': 'c-1'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | IngestAccepted
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: IngestRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorEnvelope | IngestAccepted]:
    """Submit a conversation's events for scoring.

     The body is validated in full before anything is stored; on success the session,
    its events and its job are committed together, then 202 is returned. Poll
    `poll_url` until `status` is `complete` or `failed`.

    Args:
        idempotency_key (str | Unset):
        body (IngestRequest): The body of `POST /ingest` (SPEC.md §2.2). Example:
            {'deployment_id': 'acme-support-bot', 'events': [{'actor_id': 'cust-1', 'content': "My
            refund still hasn't arrived.", 'timestamp': '2026-11-21T09:30:00Z', 'conversation_id':
            'c-1'}, {'actor_id': 'acme-support-bot', 'content': 'Refunds take 5-7 days.', 'timestamp':
            '2026-11-21T09:30:04Z', 'conversation_id': 'c-1'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | IngestAccepted]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: IngestRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorEnvelope | IngestAccepted | None:
    """Submit a conversation's events for scoring.

     The body is validated in full before anything is stored; on success the session,
    its events and its job are committed together, then 202 is returned. Poll
    `poll_url` until `status` is `complete` or `failed`.

    Args:
        idempotency_key (str | Unset):
        body (IngestRequest): The body of `POST /ingest` (SPEC.md §2.2). Example:
            {'deployment_id': 'acme-support-bot', 'events': [{'actor_id': 'cust-1', 'content': "My
            refund still hasn't arrived.", 'timestamp': '2026-11-21T09:30:00Z', 'conversation_id':
            'c-1'}, {'actor_id': 'acme-support-bot', 'content': 'Refunds take 5-7 days.', 'timestamp':
            '2026-11-21T09:30:04Z', 'conversation_id': 'c-1'}]}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | IngestAccepted
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
