from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_deploy import CreateDeploy
from ...models.deploy_view import DeployView
from ...models.error_envelope import ErrorEnvelope
from ...types import Response


def _get_kwargs(
    deployment_id: str,
    *,
    body: CreateDeploy,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/deployments/{deployment_id}/deploys".format(
            deployment_id=quote(str(deployment_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DeployView | ErrorEnvelope | None:
    if response.status_code == 201:
        response_201 = DeployView.from_dict(response.json())

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
) -> Response[DeployView | ErrorEnvelope]:
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
    body: CreateDeploy,
) -> Response[DeployView | ErrorEnvelope]:
    """Record a deploy.

     Conversations after it are compared with those before it; once the post-deploy
    window settles (as many conversations after as before, at least 30), the
    resolved rates are tested and `outcome_shift_detected` fires if they moved by at
    least 3 points with p < 0.05. A new `release` or `model_version` in event
    metadata records a marker too.

    Args:
        deployment_id (str):
        body (CreateDeploy): The body of `POST /deployments/{id}/deploys`; every field is
            optional. Example: {'release': 'support-bot-2026.11.3', 'description': 'New refund
            prompt', 'deployed_at': '2026-11-21T08:00:00Z'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeployView | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    body: CreateDeploy,
) -> DeployView | ErrorEnvelope | None:
    """Record a deploy.

     Conversations after it are compared with those before it; once the post-deploy
    window settles (as many conversations after as before, at least 30), the
    resolved rates are tested and `outcome_shift_detected` fires if they moved by at
    least 3 points with p < 0.05. A new `release` or `model_version` in event
    metadata records a marker too.

    Args:
        deployment_id (str):
        body (CreateDeploy): The body of `POST /deployments/{id}/deploys`; every field is
            optional. Example: {'release': 'support-bot-2026.11.3', 'description': 'New refund
            prompt', 'deployed_at': '2026-11-21T08:00:00Z'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeployView | ErrorEnvelope
    """

    return sync_detailed(
        deployment_id=deployment_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    body: CreateDeploy,
) -> Response[DeployView | ErrorEnvelope]:
    """Record a deploy.

     Conversations after it are compared with those before it; once the post-deploy
    window settles (as many conversations after as before, at least 30), the
    resolved rates are tested and `outcome_shift_detected` fires if they moved by at
    least 3 points with p < 0.05. A new `release` or `model_version` in event
    metadata records a marker too.

    Args:
        deployment_id (str):
        body (CreateDeploy): The body of `POST /deployments/{id}/deploys`; every field is
            optional. Example: {'release': 'support-bot-2026.11.3', 'description': 'New refund
            prompt', 'deployed_at': '2026-11-21T08:00:00Z'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeployView | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    deployment_id: str,
    *,
    client: AuthenticatedClient,
    body: CreateDeploy,
) -> DeployView | ErrorEnvelope | None:
    """Record a deploy.

     Conversations after it are compared with those before it; once the post-deploy
    window settles (as many conversations after as before, at least 30), the
    resolved rates are tested and `outcome_shift_detected` fires if they moved by at
    least 3 points with p < 0.05. A new `release` or `model_version` in event
    metadata records a marker too.

    Args:
        deployment_id (str):
        body (CreateDeploy): The body of `POST /deployments/{id}/deploys`; every field is
            optional. Example: {'release': 'support-bot-2026.11.3', 'description': 'New refund
            prompt', 'deployed_at': '2026-11-21T08:00:00Z'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeployView | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            deployment_id=deployment_id,
            client=client,
            body=body,
        )
    ).parsed
