"""Contains all the data models used in inputs/outputs"""

from .anomaly_data import AnomalyData
from .archetype import Archetype
from .archetype_evidence import ArchetypeEvidence
from .attempt_view import AttemptView
from .band import Band
from .bie_event import BIEEvent
from .bie_event_metadata_type_0 import BIEEventMetadataType0
from .code import Code
from .condensed_output import CondensedOutput
from .condensed_view import CondensedView
from .condensed_view_layer_z_type_0 import CondensedViewLayerZType0
from .conversation_result import ConversationResult
from .create_deploy import CreateDeploy
from .create_webhook import CreateWebhook
from .crossing_data import CrossingData
from .crossing_data_evidence_item import CrossingDataEvidenceItem
from .delivery_page import DeliveryPage
from .delivery_status import DeliveryStatus
from .delivery_view import DeliveryView
from .deploy_list import DeployList
from .deploy_view import DeployView
from .deploy_view_result_type_0 import DeployViewResultType0
from .deployment_list import DeploymentList
from .deployment_summary import DeploymentSummary
from .detail import Detail
from .dimension_drift import DimensionDrift
from .dimension_drifts import DimensionDrifts
from .dimension_score import DimensionScore
from .direction import Direction
from .disabled_view import DisabledView
from .drift_accepted import DriftAccepted
from .drift_direction import DriftDirection
from .drift_request import DriftRequest
from .drift_result import DriftResult
from .drift_view import DriftView
from .drift_view_after_type_0 import DriftViewAfterType0
from .drift_view_before_type_0 import DriftViewBeforeType0
from .drift_view_dimension_drifts_type_0 import DriftViewDimensionDriftsType0
from .drift_view_outcome_shift_type_0 import DriftViewOutcomeShiftType0
from .environment import Environment
from .error_body import ErrorBody
from .error_envelope import ErrorEnvelope
from .event_kind import EventKind
from .evidence import Evidence
from .full_output import FullOutput
from .grouping import Grouping
from .health import Health
from .history_drift_body import HistoryDriftBody
from .history_range import HistoryRange
from .history_view import HistoryView
from .history_view_anomalies_item import HistoryViewAnomaliesItem
from .history_view_days_item import HistoryViewDaysItem
from .ingest_accepted import IngestAccepted
from .ingest_request import IngestRequest
from .intelligence import Intelligence
from .key_view import KeyView
from .layer_z import LayerZ
from .limits import Limits
from .outcome_shift import OutcomeShift
from .outcome_shift_data import OutcomeShiftData
from .outcome_shift_data_shift import OutcomeShiftDataShift
from .period_doc import PeriodDoc
from .period_summary import PeriodSummary
from .pipeline_doc import PipelineDoc
from .pipeline_source import PipelineSource
from .ready_data import ReadyData
from .ready_data_result_type_0 import ReadyDataResultType0
from .report_data import ReportData
from .report_data_report import ReportDataReport
from .report_list import ReportList
from .report_view import ReportView
from .report_view_report import ReportViewReport
from .resolution_source import ResolutionSource
from .scored_pipeline import ScoredPipeline
from .session_page import SessionPage
from .session_status import SessionStatus
from .session_summary import SessionSummary
from .session_view import SessionView
from .session_view_full_output_type_0 import SessionViewFullOutputType0
from .summarised import Summarised
from .test_data import TestData
from .test_queued import TestQueued
from .transcript_response_200 import TranscriptResponse200
from .trust_mode import TrustMode
from .turn_result import TurnResult
from .verdict import Verdict
from .view_name import ViewName
from .webhook_created import WebhookCreated
from .webhook_envelope import WebhookEnvelope
from .webhook_envelope_data import WebhookEnvelopeData
from .webhook_list import WebhookList
from .webhook_view import WebhookView

__all__ = (
    "AnomalyData",
    "Archetype",
    "ArchetypeEvidence",
    "AttemptView",
    "BIEEvent",
    "BIEEventMetadataType0",
    "Band",
    "Code",
    "CondensedOutput",
    "CondensedView",
    "CondensedViewLayerZType0",
    "ConversationResult",
    "CreateDeploy",
    "CreateWebhook",
    "CrossingData",
    "CrossingDataEvidenceItem",
    "DeliveryPage",
    "DeliveryStatus",
    "DeliveryView",
    "DeployList",
    "DeployView",
    "DeployViewResultType0",
    "DeploymentList",
    "DeploymentSummary",
    "Detail",
    "DimensionDrift",
    "DimensionDrifts",
    "DimensionScore",
    "Direction",
    "DisabledView",
    "DriftAccepted",
    "DriftDirection",
    "DriftRequest",
    "DriftResult",
    "DriftView",
    "DriftViewAfterType0",
    "DriftViewBeforeType0",
    "DriftViewDimensionDriftsType0",
    "DriftViewOutcomeShiftType0",
    "Environment",
    "ErrorBody",
    "ErrorEnvelope",
    "EventKind",
    "Evidence",
    "FullOutput",
    "Grouping",
    "Health",
    "HistoryDriftBody",
    "HistoryRange",
    "HistoryView",
    "HistoryViewAnomaliesItem",
    "HistoryViewDaysItem",
    "IngestAccepted",
    "IngestRequest",
    "Intelligence",
    "KeyView",
    "LayerZ",
    "Limits",
    "OutcomeShift",
    "OutcomeShiftData",
    "OutcomeShiftDataShift",
    "PeriodDoc",
    "PeriodSummary",
    "PipelineDoc",
    "PipelineSource",
    "ReadyData",
    "ReadyDataResultType0",
    "ReportData",
    "ReportDataReport",
    "ReportList",
    "ReportView",
    "ReportViewReport",
    "ResolutionSource",
    "ScoredPipeline",
    "SessionPage",
    "SessionStatus",
    "SessionSummary",
    "SessionView",
    "SessionViewFullOutputType0",
    "Summarised",
    "TestData",
    "TestQueued",
    "TranscriptResponse200",
    "TrustMode",
    "TurnResult",
    "Verdict",
    "ViewName",
    "WebhookCreated",
    "WebhookEnvelope",
    "WebhookEnvelopeData",
    "WebhookList",
    "WebhookView",
)
