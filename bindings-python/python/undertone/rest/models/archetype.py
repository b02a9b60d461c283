from enum import StrEnum


class Archetype(StrEnum):
    AI_TUTOR = "ai_tutor"
    CODING_AGENT = "coding_agent"
    COMPANION = "companion"
    CUSTOM = "custom"
    CX_CHATBOT = "cx_chatbot"
    HEALTHCARE = "healthcare"
    INTERNAL_COPILOT = "internal_copilot"
    MODERATION = "moderation"
    SALES_AGENT = "sales_agent"

    def __str__(self) -> str:
        return str(self.value)
