"""Type stubs of the Rust extension ``undertone._native`` (checked by ``mypy.stubtest``)."""

from collections.abc import Mapping
from typing import Optional, Union

__all__ = ["DEFAULT_TOLERANCE_SECS", "SCORER_VERSION", "UndertoneError", "ValidationError"]
__all__ += ["drift", "import_conversations", "score", "validate", "verify_signature"]
__all__ += ["OPTION_NESTING_MAX", "lone_surrogate", "too_large_number", "too_nested"]

SCORER_VERSION: str
DEFAULT_TOLERANCE_SECS: int
OPTION_NESTING_MAX: int

class UndertoneError(Exception):
    code: str
    details: list[dict[str, str]]

class ValidationError(UndertoneError): ...

# Inputs: a path (read by the extension) or bytes; options: JSON text, read by core.
def score(data: Union[str, bytes], options: str) -> str: ...
def validate(data: Union[str, bytes], options: str) -> str: ...
def drift(before: Union[str, bytes], after: Union[str, bytes], options: str) -> str: ...
def import_conversations(
    format: str,
    files: Union[str, bytes, Mapping[str, Union[str, bytes]]],
    options: str,
    mapping_bytes: Optional[bytes] = None,
) -> str: ...
def verify_signature(
    secret: str, body: bytes, headers: list[tuple[str, str]], options: str, clock: int
) -> bool: ...

# The ValidationError for a str at `path` holding a lone surrogate (no UTF-8 text can).
def lone_surrogate(path: str) -> ValidationError: ...

# The ValidationError for an option nested more than OPTION_NESTING_MAX deep.
def too_nested(path: str) -> ValidationError: ...

# The ValidationError for an option holding a number past the largest float.
def too_large_number(path: str) -> ValidationError: ...
