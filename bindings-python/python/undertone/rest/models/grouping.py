from enum import StrEnum


class Grouping(StrEnum):
    ACTOR_CONTEXT_GAP = "actor_context_gap"
    CONVERSATION_ID = "conversation_id"
    METADATA_CONVERSATION_ID = "metadata_conversation_id"

    def __str__(self) -> str:
        return str(self.value)
