from enum import StrEnum


class Band(StrEnum):
    BROKEN = "broken"
    HEALTHY = "healthy"
    WATCH = "watch"

    def __str__(self) -> str:
        return str(self.value)
