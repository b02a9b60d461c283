from enum import StrEnum


class ResolutionSource(StrEnum):
    DETECTED = "detected"
    METADATA = "metadata"

    def __str__(self) -> str:
        return str(self.value)
