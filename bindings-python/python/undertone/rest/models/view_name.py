from enum import StrEnum


class ViewName(StrEnum):
    CONDENSED = "condensed"
    FULL = "full"

    def __str__(self) -> str:
        return str(self.value)
