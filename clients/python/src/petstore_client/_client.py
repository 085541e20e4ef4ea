"""The clients: one request core with retries, shared by ``Petstore`` (sync) and ``AsyncPetstore`` (async)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping
from typing import Any, TypeVar
from urllib.parse import quote

import httpx

from ._events import OnOpen, PetstoreStreamItem, _Stream
from ._generated import API_VERSION, AsyncOperations, Operations
from ._retry import RETRIED_STATUSES, RetryPolicy, retry_after_seconds
from .errors import PetstoreError, PreconditionFailedError, error_from

T = TypeVar("T")

#: Called before each wait: (the attempt that failed, counted from 1; seconds to wait; its answer, or None after a
#: connection failure).
OnRetry = Callable[[int, float, "httpx.Response | None"], None]

# Methods whose repetition changes nothing more; POST joins them because it always carries an Idempotency-Key.
_REPEATABLE = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "POST"})

#: Where the clients warn of a wait of over a second, which would otherwise look like a hang.
LOGGER = logging.getLogger("petstore_client")


class _Core:
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        retry: RetryPolicy | None,
        on_retry: OnRetry | None,
        logger: logging.Logger | None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.retry = retry if retry is not None else RetryPolicy(max_retries=0)
        self.on_retry = on_retry
        self.logger = logger

    def _headers(self, method: str, body: Any, if_match: str | None, idempotency_key: str | None) -> dict[str, str]:
        headers = {"accept": "application/json", "user-agent": f"petstore-client-python/{API_VERSION}"}
        if self.api_key is not None:
            headers["x-api-key"] = self.api_key
        if body is not None:
            headers["content-type"] = "application/json"
        if if_match is not None:
            headers["if-match"] = if_match
        if method == "POST":
            # One key for the logical call, sent on every attempt: a retry replays the first answer, never a second order.
            headers["idempotency-key"] = idempotency_key or str(uuid.uuid4())
        return headers

    def _url(self, path: str, path_params: Mapping[str, Any]) -> str:
        for name, value in path_params.items():
            path = path.replace("{" + name + "}", quote(str(value), safe=""))
        return path if path.startswith(("http://", "https://")) else self.base_url + path

    @staticmethod
    def _query(query: Mapping[str, Any]) -> dict[str, str]:
        def text(value: Any) -> str:
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, (list, tuple)):
                return ",".join(text(item) for item in value)
            return str(value)

        return {name: text(value) for name, value in query.items() if value is not None}

    def _decide(self, attempt: int, method: str, url: str, outcome: httpx.Response | Exception) -> float | None:
        """Seconds to wait before the next attempt (announced), or None when ``outcome`` is final."""
        response = outcome if isinstance(outcome, httpx.Response) else None
        if response is None:
            delay = self.retry.delay(attempt, None) if method in _REPEATABLE else None
        elif response.status_code in RETRIED_STATUSES:
            delay = self.retry.delay(attempt, response)
        else:
            delay = None
        if delay is not None:
            reason = "retry-after" if response is not None and retry_after_seconds(response) is not None else "backoff"
            self._announce(attempt + 1, delay, reason, method, url, response, self.retry.max_retries + 1)
        return delay

    def _announce(
        self,
        attempt: int,
        delay: float,
        reason: str,
        method: str,
        url: str,
        response: httpx.Response | None,
        attempts: int | None,
    ) -> None:
        """Tells ``on_retry`` of a wait and, when it is over a second, the logger: a long wait never looks like a hang."""
        if self.on_retry is not None:
            self.on_retry(attempt, delay, response)
        if self.logger is None or delay <= 1.0:
            return
        if reason == "reconnect":
            self.logger.warning("petstore_client: %s %s ended; reconnecting in %.1f s", method, url, delay)
            return
        what = "failed" if response is None else f"answered {response.status_code}"
        then = "" if attempts is None else f" before attempt {attempt + 1} of {attempts}"
        self.logger.warning("petstore_client: %s %s %s; waiting %.1f s (%s)%s", method, url, what, delay, reason, then)

    @staticmethod
    def _final(outcome: httpx.Response | Exception) -> httpx.Response:
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    @staticmethod
    def _result(response: httpx.Response) -> Any:
        if response.status_code >= 300:
            raise error_from(response)
        if response.status_code == 204 or not response.content:
            return None
        return response.json()


class Petstore(_Core, Operations):
    """The petstore API, synchronously.

    >>> with Petstore("http://localhost:8080", api_key="…") as petstore:
    ...     pets = petstore.list_pets(status=["available"])

    ``retry`` sets the back-off (``RetryPolicy``; ``None`` or ``RetryPolicy(max_retries=0)`` turns it off);
    ``on_retry`` sees each wait; ``logger`` gets a warning for each wait of over a second (``None`` for none);
    ``timeout`` is httpx's; ``http_client`` may be your own ``httpx.Client``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        retry: RetryPolicy | None = RetryPolicy(),
        on_retry: OnRetry | None = None,
        logger: logging.Logger | None = LOGGER,
        timeout: float | httpx.Timeout = 30.0,
        http_client: httpx.Client | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(base_url, api_key=api_key, retry=retry, on_retry=on_retry, logger=logger)
        self._http = http_client or httpx.Client(timeout=timeout)
        self._sleep = sleep

    def __enter__(self) -> Petstore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        path_params: Mapping[str, Any] = {},
        query: Mapping[str, Any] = {},
        body: Any = None,
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> httpx.Response:
        """One logical call, retried as the policy says; the last answer, whatever its status."""
        url = self._url(path, path_params)
        headers = self._headers(method, body, if_match, idempotency_key)
        params = self._query(query) or None  # None keeps the query a `Link` URL carries
        for attempt in itertools.count():
            outcome: httpx.Response | Exception
            try:
                outcome = self._http.request(method, url, params=params, json=body, headers=headers)
            except httpx.TransportError as error:
                outcome = error
            delay = self._decide(attempt, method, url, outcome)
            if delay is None:
                return self._final(outcome)
            self._sleep(delay)
        raise AssertionError("unreachable")

    def _call(self, method: str, path: str, **options: Any) -> Any:
        return self._result(self.request(method, path, **options))

    def _paginate(self, path: str, query: Mapping[str, Any]) -> Iterator[Any]:
        response = self.request("GET", path, query=query)
        while True:
            yield from self._result(response)
            following = response.links.get("next", {}).get("url")
            if not following:
                return
            response = self.request("GET", following)

    def conditional_update(
        self, path: str, change: Callable[[Any], Any], *, method: str = "PUT", attempts: int = 3
    ) -> Any:
        """Reads ``path``, sends ``change(current)`` with ``If-Match`` its ``ETag``, and on 412 reads and tries again.

        ``change`` may run more than once, each time on the resource as it now is. After ``attempts`` stale tags the
        last ``PreconditionFailedError`` is raised.
        """
        for attempt in range(attempts):
            current = self.request("GET", path)
            value = self._result(current)
            try:
                return self._call(method, path, body=change(value), if_match=current.headers.get("etag"))
            except PreconditionFailedError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    def events(
        self,
        *,
        last_event_id: str | None = None,
        max_retries: int | None = None,
        idle_timeout: float = 45.0,
        on_open: OnOpen | None = None,
    ) -> Generator[PetstoreStreamItem, None, None]:
        """``GET /events`` (staff and admin keys): every event of the log as it happens, and a ``PetstoreStreamReset``
        when the service could not resume exactly after ``last_event_id``.

        Reconnects by itself with ``Last-Event-ID`` after a dropped connection or ``idle_timeout`` seconds without a
        byte (the service sends a heartbeat every 15 s); backs off on 429, 5xx and connection failures (``max_retries``
        in a row, default no limit). Raises ``PetstoreStreamEndedError`` when the service ends the stream for good, and
        a ``PetstoreError`` when it refuses it (401, 403). ``break`` (or ``close()``) closes the connection.
        """
        stream = _Stream(self, last_event_id, max_retries)
        timeout = httpx.Timeout(self._http.timeout.connect, read=idle_timeout)
        while True:
            request = self._http.build_request("GET", stream.url, headers=stream.headers(), timeout=timeout)
            try:
                response = self._http.send(request, stream=True)
            except httpx.TransportError as error:
                self._sleep(stream.failed(error))
                continue
            try:
                if response.status_code != 200:
                    response.read()
                if not stream.opens(response):
                    delay = stream.failed(response)
                else:
                    if on_open is not None:
                        on_open(response)
                    try:
                        for text in response.iter_text():
                            yield from stream.feed(text)
                            if stream.ended is not None:
                                break
                    except httpx.TransportError:
                        pass  # dropped, or idle for idle_timeout: reconnect after the last id seen
                    delay = stream.after_connection()
            finally:
                response.close()
            self._sleep(delay)


class AsyncPetstore(_Core, AsyncOperations):
    """The petstore API with ``async``/``await``: the same operations, options and errors as ``Petstore``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        retry: RetryPolicy | None = RetryPolicy(),
        on_retry: OnRetry | None = None,
        logger: logging.Logger | None = LOGGER,
        timeout: float | httpx.Timeout = 30.0,
        http_client: httpx.AsyncClient | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        super().__init__(base_url, api_key=api_key, retry=retry, on_retry=on_retry, logger=logger)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._sleep = sleep

    async def __aenter__(self) -> AsyncPetstore:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def request(
        self,
        method: str,
        path: str,
        *,
        path_params: Mapping[str, Any] = {},
        query: Mapping[str, Any] = {},
        body: Any = None,
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> httpx.Response:
        """One logical call, retried as the policy says; the last answer, whatever its status."""
        url = self._url(path, path_params)
        headers = self._headers(method, body, if_match, idempotency_key)
        params = self._query(query) or None  # None keeps the query a `Link` URL carries
        for attempt in itertools.count():
            outcome: httpx.Response | Exception
            try:
                outcome = await self._http.request(method, url, params=params, json=body, headers=headers)
            except httpx.TransportError as error:
                outcome = error
            delay = self._decide(attempt, method, url, outcome)
            if delay is None:
                return self._final(outcome)
            await self._sleep(delay)
        raise AssertionError("unreachable")

    async def _call(self, method: str, path: str, **options: Any) -> Any:
        return self._result(await self.request(method, path, **options))

    async def _paginate(self, path: str, query: Mapping[str, Any]) -> AsyncIterator[Any]:
        response = await self.request("GET", path, query=query)
        while True:
            for item in self._result(response):
                yield item
            following = response.links.get("next", {}).get("url")
            if not following:
                return
            response = await self.request("GET", following)

    async def conditional_update(
        self, path: str, change: Callable[[Any], Any], *, method: str = "PUT", attempts: int = 3
    ) -> Any:
        """As ``Petstore.conditional_update``."""
        for attempt in range(attempts):
            current = await self.request("GET", path)
            value = self._result(current)
            try:
                return await self._call(method, path, body=change(value), if_match=current.headers.get("etag"))
            except PreconditionFailedError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    async def events(
        self,
        *,
        last_event_id: str | None = None,
        max_retries: int | None = None,
        idle_timeout: float = 45.0,
        on_open: OnOpen | None = None,
    ) -> AsyncGenerator[PetstoreStreamItem, None]:
        """As ``Petstore.events``, as an async iterator."""
        stream = _Stream(self, last_event_id, max_retries)
        timeout = httpx.Timeout(self._http.timeout.connect, read=idle_timeout)
        while True:
            request = self._http.build_request("GET", stream.url, headers=stream.headers(), timeout=timeout)
            try:
                response = await self._http.send(request, stream=True)
            except httpx.TransportError as error:
                await self._sleep(stream.failed(error))
                continue
            try:
                if response.status_code != 200:
                    await response.aread()
                if not stream.opens(response):
                    delay = stream.failed(response)
                else:
                    if on_open is not None:
                        on_open(response)
                    try:
                        async for text in response.aiter_text():
                            for item in stream.feed(text):
                                yield item
                            if stream.ended is not None:
                                break
                    except httpx.TransportError:
                        pass  # dropped, or idle for idle_timeout: reconnect after the last id seen
                    delay = stream.after_connection()
            finally:
                await response.aclose()
            await self._sleep(delay)


__all__ = ["LOGGER", "AsyncPetstore", "OnRetry", "Petstore", "PetstoreError"]
