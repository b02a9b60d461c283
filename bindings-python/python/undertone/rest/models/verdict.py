from enum import StrEnum


class Verdict(StrEnum):
    IMPROVED = "improved"
    INSUFFICIENT_DATA = "insufficient_data"
    REGRESSED = "regressed"
    UNCHANGED = "unchanged"

    def __str__(self) -> str:
        return str(self.value)
