from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.condensed_view import CondensedView
from ...models.error_envelope import ErrorEnvelope
from ...models.session_view import SessionView
from ...models.view_name import ViewName
from ...types import UNSET, Response, Unset


def _get_kwargs(
    session_id: str,
    *,
    view: ViewName | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_view: str | Unset = UNSET
    if not isinstance(view, Unset):
        json_view = view.value

    params["view"] = json_view

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/intelligence/{session_id}".format(
            session_id=quote(str(session_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CondensedView | SessionView | ErrorEnvelope | None:
    if response.status_code == 200:

        def _parse_response_200(data: object) -> CondensedView | SessionView:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_intelligence_view_type_0 = SessionView.from_dict(data)

                return componentsschemas_intelligence_view_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_intelligence_view_type_1 = CondensedView.from_dict(data)

            return componentsschemas_intelligence_view_type_1

        response_200 = _parse_response_200(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

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
) -> Response[CondensedView | SessionView | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    view: ViewName | Unset = UNSET,
) -> Response[CondensedView | SessionView | ErrorEnvelope]:
    """Poll a session.

     `?view=condensed` returns the short shape: archetype, request-level Layer Z, key
    finding, recommendation.

    Args:
        session_id (str):
        view (ViewName | Unset): The shapes a session can be read in.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CondensedView | SessionView | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        view=view,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    session_id: str,
    *,
    client: AuthenticatedClient,
    view: ViewName | Unset = UNSET,
) -> CondensedView | SessionView | ErrorEnvelope | None:
    """Poll a session.

     `?view=condensed` returns the short shape: archetype, request-level Layer Z, key
    finding, recommendation.

    Args:
        session_id (str):
        view (ViewName | Unset): The shapes a session can be read in.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CondensedView | SessionView | ErrorEnvelope
    """

    return sync_detailed(
        session_id=session_id,
        client=client,
        view=view,
    ).parsed


async def asyncio_detailed(
    session_id: str,
    *,
    client: AuthenticatedClient,
    view: ViewName | Unset = UNSET,
) -> Response[CondensedView | SessionView | ErrorEnvelope]:
    """Poll a session.

     `?view=condensed` returns the short shape: archetype, request-level Layer Z, key
    finding, recommendation.

    Args:
        session_id (str):
        view (ViewName | Unset): The shapes a session can be read in.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CondensedView | SessionView | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        session_id=session_id,
        view=view,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    session_id: str,
    *,
    client: AuthenticatedClient,
    view: ViewName | Unset = UNSET,
) -> CondensedView | SessionView | ErrorEnvelope | None:
    """Poll a session.

     `?view=condensed` returns the short shape: archetype, request-level Layer Z, key
    finding, recommendation.

    Args:
        session_id (str):
        view (ViewName | Unset): The shapes a session can be read in.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CondensedView | SessionView | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            session_id=session_id,
            client=client,
            view=view,
        )
    ).parsed
