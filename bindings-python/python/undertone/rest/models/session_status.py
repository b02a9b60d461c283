from enum import StrEnum


class SessionStatus(StrEnum):
    COMPLETE = "complete"
    FAILED = "failed"
    PROCESSING = "processing"
    RECEIVED = "received"

    def __str__(self) -> str:
        return str(self.value)
