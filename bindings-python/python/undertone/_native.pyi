"""Type stubs of the Rust extension ``undertone._native`` (checked by ``mypy.stubtest``)."""

from typing import Optional

__all__ = [
    "DEFAULT_TOLERANCE_SECS",
    "SCORER_VERSION",
    "UndertoneError",
    "ValidationError",
    "drift",
    "import_conversations",
    "score",
    "validate",
    "verify_signature",
]

SCORER_VERSION: str
DEFAULT_TOLERANCE_SECS: int

class UndertoneError(Exception):
    code: str
    details: list[dict[str, str]]

class ValidationError(UndertoneError): ...

def score(
    data: bytes,
    *,
    name: Optional[str] = None,
    format: str = "auto",
    deployment_id: Optional[str] = None,
    pipeline: Optional[str] = None,
    view: str = "full",
) -> str: ...
def validate(
    data: bytes,
    *,
    name: Optional[str] = None,
    format: str = "auto",
    deployment_id: Optional[str] = None,
) -> str: ...
def drift(
    before: bytes,
    after: bytes,
    *,
    before_name: Optional[str] = None,
    after_name: Optional[str] = None,
    format: str = "auto",
    deployment_id: Optional[str] = None,
    question: Optional[str] = None,
    before_label: Optional[str] = None,
    after_label: Optional[str] = None,
) -> str: ...
def import_conversations(
    format: str,
    files: list[tuple[str, bytes]],
    *,
    mapping: Optional[bytes] = None,
    deployment_id: Optional[str] = None,
) -> str: ...
def verify_signature(
    secret: str,
    body: bytes,
    headers: list[tuple[str, str]],
    *,
    now: int,
    tolerance_secs: int,
) -> bool: ...
