from enum import StrEnum


class ScoredPipeline(StrEnum):
    REVIEWS = "reviews"
    SUPPORT = "support"

    def __str__(self) -> str:
        return str(self.value)
