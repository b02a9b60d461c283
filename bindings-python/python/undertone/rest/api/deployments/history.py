from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.history_view import HistoryView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    deployment_id: str,
    *,
    days: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["days"] = days

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/deployments/{deployment_id}/history".format(
            deployment_id=quote(str(deployment_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | HistoryView | None:
    if response.status_code == 200:
        response_200 = HistoryView.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorEnvelope.from_dict(response.json())

        return response_500

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | HistoryView]:
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
    days: int | Unset = UNSET,
) -> Response[ErrorEnvelope | HistoryView]:
    """A deployment's history.

     The last `days` (1 to 366, default 30) of the deployment's scored conversations,
    by UTC day: each dimension's median score and broken share, the resolved share, deploy
    markers and anomalies. What the app's deployment page draws.

    Args:
        deployment_id (str):
        days (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | HistoryView]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        days=days,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    days: int | Unset = UNSET,
) -> ErrorEnvelope | HistoryView | None:
    """A deployment's history.

     The last `days` (1 to 366, default 30) of the deployment's scored conversations,
    by UTC day: each dimension's median score and broken share, the resolved share, deploy
    markers and anomalies. What the app's deployment page draws.

    Args:
        deployment_id (str):
        days (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | HistoryView
    """

    return sync_detailed(
        deployment_id=deployment_id,
        client=client,
        days=days,
    ).parsed


async def asyncio_detailed(
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    days: int | Unset = UNSET,
) -> Response[ErrorEnvelope | HistoryView]:
    """A deployment's history.

     The last `days` (1 to 366, default 30) of the deployment's scored conversations,
    by UTC day: each dimension's median score and broken share, the resolved share, deploy
    markers and anomalies. What the app's deployment page draws.

    Args:
        deployment_id (str):
        days (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | HistoryView]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        days=days,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    days: int | Unset = UNSET,
) -> ErrorEnvelope | HistoryView | None:
    """A deployment's history.

     The last `days` (1 to 366, default 30) of the deployment's scored conversations,
    by UTC day: each dimension's median score and broken share, the resolved share, deploy
    markers and anomalies. What the app's deployment page draws.

    Args:
        deployment_id (str):
        days (int | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | HistoryView
    """

    return (
        await asyncio_detailed(
            deployment_id=deployment_id,
            client=client,
            days=days,
        )
    ).parsed
