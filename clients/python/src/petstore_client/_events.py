"""``GET /events`` as an iterator: server-sent events parsed here, resumed with ``Last-Event-ID`` after a dropped
connection, with back-off on 429 and 503. The state of one iteration is ``_Stream``, shared by the sync and the async
loops in ``_client``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import httpx

from ._generated import (
    InventoryChangedEvent,
    OrderCancelledEvent,
    OrderCompletedEvent,
    OrderPlacedEvent,
    PetStatusChangedEvent,
)
from ._retry import retry_after_seconds
from .errors import error_from

if TYPE_CHECKING:
    from ._client import _Core

PetstoreEventBody: TypeAlias = (
    OrderPlacedEvent | OrderCompletedEvent | OrderCancelledEvent | PetStatusChangedEvent | InventoryChangedEvent
)
"""The body of an event: what a webhook delivery of it carries, told apart by ``body["type"]``."""


@dataclass(frozen=True)
class PetstoreEvent:
    """An event of the log: its ``id`` (its place in the log, the ``last_event_id`` to resume after it) and its body."""

    id: str
    body: PetstoreEventBody
    kind: Literal["event"] = "event"


@dataclass(frozen=True)
class PetstoreStreamReset:
    """The service could not resume exactly after the id sent (``reason``: ``ahead``, ``expired`` or ``unknown_log``).

    The stream goes on after ``from_id``; events in between may be missing, so re-read what you keep.
    """

    reason: str
    last_event_id: str
    from_id: str
    kind: Literal["reset"] = "reset"


PetstoreStreamItem: TypeAlias = PetstoreEvent | PetstoreStreamReset

#: Called each time a connection opens (the first and every reconnect): from then on every event is delivered.
OnOpen = Callable[[httpx.Response], None]


class PetstoreStreamEndedError(Exception):
    """The service ended the event stream for good: ``reason`` is ``key_revoked``, ``key_banned`` or ``forbidden``."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the event stream was ended by the service: {reason}")
        self.reason = reason


@dataclass
class SseMessage:
    event: str
    data: str
    #: The last event ID after this message (its own ``id:``, or the one before).
    id: str | None


class SseParser:
    """A server-sent events parser (the WHATWG "event stream interpretation"): feed it text, take whole messages."""

    def __init__(self, last_event_id: str | None = None) -> None:
        self.last_event_id = last_event_id
        self.retry: float | None = None
        self._buffer = ""
        self._event = ""
        self._data: list[str] = []

    def feed(self, text: str) -> Iterator[SseMessage]:
        self._buffer += text
        lines = re.split(r"\r\n|\r|\n", self._buffer)
        self._buffer = lines.pop()
        # A "\r" at the very end may be half of a "\r\n": it waits for the next chunk.
        if self._buffer == "" and text.endswith("\r") and lines:
            self._buffer = lines.pop() + "\r"
        for line in lines:
            if line == "":
                data, event = self._data, self._event or "message"
                self._event, self._data = "", []
                if data:
                    yield SseMessage(event, "\n".join(data), self.last_event_id)
                continue
            if line.startswith(":"):
                continue
            field, colon, value = line.partition(":")
            value = value[1:] if colon and value.startswith(" ") else value
            if field == "event":
                self._event = value
            elif field == "data":
                self._data.append(value)
            elif field == "id" and "\0" not in value:
                self.last_event_id = value or None
            elif field == "retry" and value.isdigit():
                self.retry = int(value) / 1000


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _text(body: Any, name: str) -> str | None:
    value = body.get(name) if isinstance(body, dict) else None
    return value if isinstance(value, str) else None


# After these `end` reasons the client reconnects (with Last-Event-ID); the others stop the iteration.
_RECONNECT_REASONS = frozenset({"max_lifetime", "shutting_down"})
# The reconnect advice until the service sends its own `retry:`.
_DEFAULT_RECONNECT = 2.0


class _Stream:
    """One ``events()`` iteration: what to send, what a connection's outcome means and how long to wait."""

    def __init__(self, core: _Core, last_event_id: str | None, max_retries: int | None) -> None:
        self.core = core
        self.url = core.base_url + "/events"
        self.parser = SseParser(last_event_id)
        self.max_retries = max_retries
        self.failures = 0
        self.ended: str | None = None

    def headers(self) -> dict[str, str]:
        headers = self.core._headers("GET", None, None, None)
        headers["accept"] = "text/event-stream"
        if self.parser.last_event_id is not None:
            headers["last-event-id"] = self.parser.last_event_id
        self.ended = None
        return headers

    def opens(self, response: httpx.Response) -> bool:
        """Whether the stream opened; False when it is to be tried again (429, 5xx). Any other refusal raises."""
        if response.status_code == 429 or response.status_code >= 500:
            return False
        if response.status_code != 200:
            raise error_from(response)
        self.failures = 0
        return True

    def failed(self, outcome: httpx.Response | Exception) -> float:
        """The wait after a refused or failed connection; raises once ``max_retries`` failures in a row are spent."""
        self.failures += 1
        response = outcome if isinstance(outcome, httpx.Response) else None
        if self.max_retries is not None and self.failures > self.max_retries:
            raise outcome if isinstance(outcome, Exception) else error_from(outcome)
        retry_after = retry_after_seconds(response) if response is not None else None
        if retry_after is not None:
            return self._announce(retry_after, "retry-after", response)
        policy = self.core.retry
        ceiling = min(policy.max_delay, policy.base_delay * 2.0 ** (self.failures - 1))
        return self._announce(policy.random() * ceiling, "backoff", response)

    def feed(self, text: str) -> Iterator[PetstoreStreamItem]:
        """The items a chunk completes; an ``end`` message sets ``ended`` and stops there."""
        for message in self.parser.feed(text):
            body = _json(message.data)
            if message.event == "end":
                self.ended = _text(body, "reason") or "unknown"
                return
            if message.event == "reset":
                from_id = _text(body, "from")
                if from_id is not None:
                    self.parser.last_event_id = from_id
                yield PetstoreStreamReset(
                    reason=_text(body, "reason") or "unknown",
                    last_event_id=_text(body, "lastEventId") or "",
                    from_id=from_id or self.parser.last_event_id or "",
                )
                continue
            # Only the log's events (a body with its type); anything else a newer service sends is skipped.
            if _text(body, "type") is None or message.id is None:
                continue
            yield PetstoreEvent(id=message.id, body=body)

    def after_connection(self) -> float:
        """The wait before reconnecting once a connection is over; raises when the service ended the stream for good."""
        if self.ended is not None and self.ended not in _RECONNECT_REASONS:
            raise PetstoreStreamEndedError(self.ended)
        # A stream that lived its time is reopened at once: the same service takes the next connection.
        if self.ended == "max_lifetime":
            return 0.0
        advice = self.parser.retry if self.parser.retry is not None else _DEFAULT_RECONNECT
        return self._announce(advice, "reconnect", None)

    def _announce(self, delay: float, reason: str, response: httpx.Response | None) -> float:
        self.core._announce(self.failures, delay, reason, "GET", self.url, response, None)
        return delay
