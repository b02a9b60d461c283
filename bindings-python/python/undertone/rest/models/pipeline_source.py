from enum import StrEnum


class PipelineSource(StrEnum):
    DETECTED = "detected"
    REQUESTED = "requested"

    def __str__(self) -> str:
        return str(self.value)
