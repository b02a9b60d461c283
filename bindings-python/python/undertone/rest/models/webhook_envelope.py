from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.webhook_envelope_data import WebhookEnvelopeData


T = TypeVar("T", bound="WebhookEnvelope")


@_attrs_define
class WebhookEnvelope:
    """The body of every webhook delivery (SPEC.md §2.7). Headers: `X-Undertone-Event`
    (the kind), `X-Undertone-Delivery` (the delivery id, the same on every retry),
    `X-Undertone-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>`, and the
    Standard Webhooks `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`
    (docs/webhooks.md).

        Example:
            {'id': '5b0e7c1a-2f3d-8e4b-9a6c-7d8e9f0a1b2c', 'event_type': 'layer_z_threshold_crossed', 'version':
                'webhooks-v1.0', 'created_at': '2026-11-21T09:31:00.161Z', 'org_id': 'org_3f6c1e0b9a7d4c2e', 'deployment_id':
                'acme-support-bot', 'data': {'dimension': 'frustration_buildup', 'score': 0.7495, 'threshold': 0.55, 'band':
                'broken', 'conversation_id': '9c1d2e3f-4a5b-8c6d-9e7f-0a1b2c3d4e5f', 'conversation_external_id': 'c-1',
                'signal_id': '1a2b3c4d-5e6f-8a7b-8c9d-0e1f2a3b4c5d', 'occurred_at': '2026-11-21T09:30:40Z', 'session_id':
                '0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c', 'event_index': 4, 'signal': 'repeated_question', 'evidence': []}}

        Attributes:
            id (str): Stable event id: the same event computed twice has the same id.
            event_type (str): The event kind (or `webhook.test`).
            version (str): `webhooks-v1.0`.
            created_at (datetime.datetime): When the event was created.
            org_id (str): The organisation.
            deployment_id (str): The deployment (`webhook-test` for test events).
            data (WebhookEnvelopeData): Per kind: ReadyData, CrossingData, AnomalyData, ReportData, OutcomeShiftData or
                TestData.
    """

    id: str
    event_type: str
    version: str
    created_at: datetime.datetime
    org_id: str
    deployment_id: str
    data: WebhookEnvelopeData
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        event_type = self.event_type

        version = self.version

        created_at = self.created_at.isoformat()

        org_id = self.org_id

        deployment_id = self.deployment_id

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "event_type": event_type,
                "version": version,
                "created_at": created_at,
                "org_id": org_id,
                "deployment_id": deployment_id,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.webhook_envelope_data import WebhookEnvelopeData

        d = dict(src_dict)
        id = d.pop("id")

        event_type = d.pop("event_type")

        version = d.pop("version")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        org_id = d.pop("org_id")

        deployment_id = d.pop("deployment_id")

        data = WebhookEnvelopeData.from_dict(d.pop("data"))

        webhook_envelope = cls(
            id=id,
            event_type=event_type,
            version=version,
            created_at=created_at,
            org_id=org_id,
            deployment_id=deployment_id,
            data=data,
        )

        webhook_envelope.additional_properties = d
        return webhook_envelope

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
