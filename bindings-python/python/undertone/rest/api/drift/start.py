from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.drift_accepted import DriftAccepted
from ...models.drift_request import DriftRequest
from ...models.error_envelope import ErrorEnvelope
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: DriftRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/drift",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DriftAccepted | ErrorEnvelope | None:
    if response.status_code == 202:
        response_202 = DriftAccepted.from_dict(response.json())

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
) -> Response[DriftAccepted | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: DriftRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[DriftAccepted | ErrorEnvelope]:
    """Start a drift comparison between two periods.

     Each period holds 5–2000 events. Per dimension the per-conversation scores are
    compared with a two-sided Mann-Whitney U test, Holm-adjusted across dimensions.
    Counts against the drift window (10 per hour by default) as well as the request
    windows.

    Args:
        idempotency_key (str | Unset):
        body (DriftRequest): The body of `POST /drift` (SPEC.md §2.4).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DriftAccepted | ErrorEnvelope]
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
    body: DriftRequest,
    idempotency_key: str | Unset = UNSET,
) -> DriftAccepted | ErrorEnvelope | None:
    """Start a drift comparison between two periods.

     Each period holds 5–2000 events. Per dimension the per-conversation scores are
    compared with a two-sided Mann-Whitney U test, Holm-adjusted across dimensions.
    Counts against the drift window (10 per hour by default) as well as the request
    windows.

    Args:
        idempotency_key (str | Unset):
        body (DriftRequest): The body of `POST /drift` (SPEC.md §2.4).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DriftAccepted | ErrorEnvelope
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: DriftRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[DriftAccepted | ErrorEnvelope]:
    """Start a drift comparison between two periods.

     Each period holds 5–2000 events. Per dimension the per-conversation scores are
    compared with a two-sided Mann-Whitney U test, Holm-adjusted across dimensions.
    Counts against the drift window (10 per hour by default) as well as the request
    windows.

    Args:
        idempotency_key (str | Unset):
        body (DriftRequest): The body of `POST /drift` (SPEC.md §2.4).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DriftAccepted | ErrorEnvelope]
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
    body: DriftRequest,
    idempotency_key: str | Unset = UNSET,
) -> DriftAccepted | ErrorEnvelope | None:
    """Start a drift comparison between two periods.

     Each period holds 5–2000 events. Per dimension the per-conversation scores are
    compared with a two-sided Mann-Whitney U test, Holm-adjusted across dimensions.
    Counts against the drift window (10 per hour by default) as well as the request
    windows.

    Args:
        idempotency_key (str | Unset):
        body (DriftRequest): The body of `POST /drift` (SPEC.md §2.4).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DriftAccepted | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
