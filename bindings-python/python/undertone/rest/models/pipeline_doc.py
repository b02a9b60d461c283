from enum import StrEnum


class PipelineDoc(StrEnum):
    AUTO = "auto"
    REVIEWS = "reviews"
    SUPPORT = "support"

    def __str__(self) -> str:
        return str(self.value)
