from enum import StrEnum


class Direction(StrEnum):
    HIGHER_IS_BETTER = "higher_is_better"
    HIGHER_IS_WORSE = "higher_is_worse"

    def __str__(self) -> str:
        return str(self.value)
