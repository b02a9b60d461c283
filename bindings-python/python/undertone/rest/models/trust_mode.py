from enum import StrEnum


class TrustMode(StrEnum):
    CALIBRATED = "calibrated"
    OVER_TRUST = "over_trust"
    UNDER_TRUST = "under_trust"

    def __str__(self) -> str:
        return str(self.value)
