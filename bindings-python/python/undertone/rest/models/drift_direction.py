from enum import StrEnum


class DriftDirection(StrEnum):
    IMPROVED = "improved"
    MIXED = "mixed"
    REGRESSED = "regressed"
    STABLE = "stable"

    def __str__(self) -> str:
        return str(self.value)
