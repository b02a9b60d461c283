from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.drift_accepted import DriftAccepted
from ...models.error_envelope import ErrorEnvelope
from ...models.history_drift_body import HistoryDriftBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    deployment_id: str,
    *,
    body: HistoryDriftBody,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/deployments/{deployment_id}/drift".format(
            deployment_id=quote(str(deployment_id), safe=""),
        ),
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

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

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
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    body: HistoryDriftBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[DriftAccepted | ErrorEnvelope]:
    """Start a drift comparison between two date ranges of a deployment.

     Compares the conversations of the deployment's kept history (`--retain-days`) that
    started in each range, exactly as `POST /drift` compares scored events: per
    dimension a two-sided Mann-Whitney U test, Holm-adjusted, with the Hodges–Lehmann
    shift and interval, and the resolved rates. The conversations are read when the
    request is accepted (at most 10,000 per range); the result is read at `GET
    /drift/{session_id}`. History keeps scores, not events, so the recommendations
    cannot quote evidence and `event_count` is 0. Counts against the drift window.

    Args:
        deployment_id (str):
        idempotency_key (str | Unset):
        body (HistoryDriftBody): The body of `POST /deployments/{deployment_id}/drift`. Example:
            {'before': {'label': 'before the refund prompt', 'from': '2026-11-01T00:00:00Z', 'to':
            '2026-11-15T00:00:00Z'}, 'after': {'label': 'after', 'from': '2026-11-15T00:00:00Z', 'to':
            '2026-11-29T00:00:00Z'}, 'question': 'Are people more frustrated since the new refund
            prompt?'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DriftAccepted | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    body: HistoryDriftBody,
    idempotency_key: str | Unset = UNSET,
) -> DriftAccepted | ErrorEnvelope | None:
    """Start a drift comparison between two date ranges of a deployment.

     Compares the conversations of the deployment's kept history (`--retain-days`) that
    started in each range, exactly as `POST /drift` compares scored events: per
    dimension a two-sided Mann-Whitney U test, Holm-adjusted, with the Hodges–Lehmann
    shift and interval, and the resolved rates. The conversations are read when the
    request is accepted (at most 10,000 per range); the result is read at `GET
    /drift/{session_id}`. History keeps scores, not events, so the recommendations
    cannot quote evidence and `event_count` is 0. Counts against the drift window.

    Args:
        deployment_id (str):
        idempotency_key (str | Unset):
        body (HistoryDriftBody): The body of `POST /deployments/{deployment_id}/drift`. Example:
            {'before': {'label': 'before the refund prompt', 'from': '2026-11-01T00:00:00Z', 'to':
            '2026-11-15T00:00:00Z'}, 'after': {'label': 'after', 'from': '2026-11-15T00:00:00Z', 'to':
            '2026-11-29T00:00:00Z'}, 'question': 'Are people more frustrated since the new refund
            prompt?'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DriftAccepted | ErrorEnvelope
    """

    return sync_detailed(
        deployment_id=deployment_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    body: HistoryDriftBody,
    idempotency_key: str | Unset = UNSET,
) -> Response[DriftAccepted | ErrorEnvelope]:
    """Start a drift comparison between two date ranges of a deployment.

     Compares the conversations of the deployment's kept history (`--retain-days`) that
    started in each range, exactly as `POST /drift` compares scored events: per
    dimension a two-sided Mann-Whitney U test, Holm-adjusted, with the Hodges–Lehmann
    shift and interval, and the resolved rates. The conversations are read when the
    request is accepted (at most 10,000 per range); the result is read at `GET
    /drift/{session_id}`. History keeps scores, not events, so the recommendations
    cannot quote evidence and `event_count` is 0. Counts against the drift window.

    Args:
        deployment_id (str):
        idempotency_key (str | Unset):
        body (HistoryDriftBody): The body of `POST /deployments/{deployment_id}/drift`. Example:
            {'before': {'label': 'before the refund prompt', 'from': '2026-11-01T00:00:00Z', 'to':
            '2026-11-15T00:00:00Z'}, 'after': {'label': 'after', 'from': '2026-11-15T00:00:00Z', 'to':
            '2026-11-29T00:00:00Z'}, 'question': 'Are people more frustrated since the new refund
            prompt?'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DriftAccepted | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    body: HistoryDriftBody,
    idempotency_key: str | Unset = UNSET,
) -> DriftAccepted | ErrorEnvelope | None:
    """Start a drift comparison between two date ranges of a deployment.

     Compares the conversations of the deployment's kept history (`--retain-days`) that
    started in each range, exactly as `POST /drift` compares scored events: per
    dimension a two-sided Mann-Whitney U test, Holm-adjusted, with the Hodges–Lehmann
    shift and interval, and the resolved rates. The conversations are read when the
    request is accepted (at most 10,000 per range); the result is read at `GET
    /drift/{session_id}`. History keeps scores, not events, so the recommendations
    cannot quote evidence and `event_count` is 0. Counts against the drift window.

    Args:
        deployment_id (str):
        idempotency_key (str | Unset):
        body (HistoryDriftBody): The body of `POST /deployments/{deployment_id}/drift`. Example:
            {'before': {'label': 'before the refund prompt', 'from': '2026-11-01T00:00:00Z', 'to':
            '2026-11-15T00:00:00Z'}, 'after': {'label': 'after', 'from': '2026-11-15T00:00:00Z', 'to':
            '2026-11-29T00:00:00Z'}, 'question': 'Are people more frustrated since the new refund
            prompt?'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DriftAccepted | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            deployment_id=deployment_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
