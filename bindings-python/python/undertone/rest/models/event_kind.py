from enum import StrEnum


class EventKind(StrEnum):
    ANOMALY_DETECTED = "anomaly_detected"
    INTELLIGENCE_READY = "intelligence.ready"
    LAYER_Z_THRESHOLD_CROSSED = "layer_z_threshold_crossed"
    OUTCOME_SHIFT_DETECTED = "outcome_shift_detected"
    UHR_GENERATED = "uhr_generated"

    def __str__(self) -> str:
        return str(self.value)
