"""The one error a viewer's frame can earn: a machine-readable code, a human message, maybe a retry-after."""

from __future__ import annotations

from typing import Any


class VotingError(Exception):
    """Bad input or a refused action: the consumer sends it as an `error` frame; the socket stays open."""

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after

    def frame(self) -> dict[str, Any]:
        frame: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.retry_after is not None:
            frame["retry_after"] = self.retry_after
        return frame
