"""Typed errors: every answer that is not 2xx raises one, carrying the service's ``Error`` body."""

from __future__ import annotations

import httpx

from ._generated import Error, ErrorCode, ErrorDetailsItem


class PetstoreError(Exception):
    """An answer outside 2xx. ``code`` is the ``Error`` body's machine-readable code; branch on it, not on ``message``."""

    status: int
    code: ErrorCode | str
    message: str
    details: list[ErrorDetailsItem]
    error: Error
    headers: httpx.Headers

    def __init__(self, status: int, error: Error, headers: httpx.Headers) -> None:
        super().__init__(f"{status} {error['code']}: {error['message']}")
        self.status = status
        self.code = error["code"]
        self.message = error["message"]
        self.details = list(error.get("details", []))
        self.error = error
        self.headers = headers


class BadRequestError(PetstoreError):
    """400: the request is not valid (``validation_failed``, ``invalid_json``); ``details`` names the fields."""


class AuthenticationError(PetstoreError):
    """401 ``unauthorized``: the API key is missing, unknown or revoked."""


class PermissionDeniedError(PetstoreError):
    """403: the key's role may not do this (``forbidden``) or the key is banned (``api_key_banned``)."""


class NotFoundError(PetstoreError):
    """404 ``not_found``."""


class ConflictError(PetstoreError):
    """409: the change breaks a rule of the store (``insufficient_stock``, ``category_name_taken``, …)."""


class PreconditionFailedError(PetstoreError):
    """412 ``precondition_failed``: the ``If-Match`` tag is stale; read again and re-apply the change."""


class RateLimitedError(PetstoreError):
    """429 ``rate_limited``, raised once the retries are spent; ``retry_after`` says when to call again."""

    @property
    def retry_after(self) -> float | None:
        from ._retry import retry_after_seconds

        return retry_after_seconds(httpx.Response(self.status, headers=self.headers))


class ServiceUnavailableError(PetstoreError):
    """503 ``service_unavailable``, raised once the retries are spent."""


class ServerError(PetstoreError):
    """500 and other 5xx answers."""


_by_status: dict[int, type[PetstoreError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    412: PreconditionFailedError,
    429: RateLimitedError,
    503: ServiceUnavailableError,
}


def error_from(response: httpx.Response) -> PetstoreError:
    """The typed error of a non-2xx answer; a body that is not the ``Error`` shape still gives one."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not (isinstance(body, dict) and isinstance(body.get("code"), str)):
        body = {"code": "unexpected_answer", "message": response.text[:200] or response.reason_phrase, "status": response.status_code}
    kind = _by_status.get(response.status_code, ServerError if response.status_code >= 500 else PetstoreError)
    return kind(response.status_code, body, response.headers)  # type: ignore[arg-type]
