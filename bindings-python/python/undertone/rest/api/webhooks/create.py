from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_webhook import CreateWebhook
from ...models.error_envelope import ErrorEnvelope
from ...models.webhook_created import WebhookCreated
from ...types import Response


def _get_kwargs(
    *,
    body: CreateWebhook,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | WebhookCreated | None:
    if response.status_code == 201:
        response_201 = WebhookCreated.from_dict(response.json())

        return response_201

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

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | WebhookCreated]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWebhook,
) -> Response[ErrorEnvelope | WebhookCreated]:
    """Register an endpoint.

     The URL must be https and resolve only to public addresses (checked now and again
    at every delivery). The answer holds the signing secret: it is shown only once.

    Args:
        body (CreateWebhook): The body of `POST /webhooks`. Example: {'url':
            'https://hooks.example.com/undertone', 'events': ['intelligence.ready',
            'layer_z_threshold_crossed']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | WebhookCreated]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: CreateWebhook,
) -> ErrorEnvelope | WebhookCreated | None:
    """Register an endpoint.

     The URL must be https and resolve only to public addresses (checked now and again
    at every delivery). The answer holds the signing secret: it is shown only once.

    Args:
        body (CreateWebhook): The body of `POST /webhooks`. Example: {'url':
            'https://hooks.example.com/undertone', 'events': ['intelligence.ready',
            'layer_z_threshold_crossed']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | WebhookCreated
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: CreateWebhook,
) -> Response[ErrorEnvelope | WebhookCreated]:
    """Register an endpoint.

     The URL must be https and resolve only to public addresses (checked now and again
    at every delivery). The answer holds the signing secret: it is shown only once.

    Args:
        body (CreateWebhook): The body of `POST /webhooks`. Example: {'url':
            'https://hooks.example.com/undertone', 'events': ['intelligence.ready',
            'layer_z_threshold_crossed']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | WebhookCreated]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: CreateWebhook,
) -> ErrorEnvelope | WebhookCreated | None:
    """Register an endpoint.

     The URL must be https and resolve only to public addresses (checked now and again
    at every delivery). The answer holds the signing secret: it is shown only once.

    Args:
        body (CreateWebhook): The body of `POST /webhooks`. Example: {'url':
            'https://hooks.example.com/undertone', 'events': ['intelligence.ready',
            'layer_z_threshold_crossed']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | WebhookCreated
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
