"""A scripted service for the unit tests: httpx.MockTransport answering from a list, recording every request."""

from __future__ import annotations

import json
from typing import Any

import httpx


def answer(status: int, body: Any = None, **headers: str) -> httpx.Response:
    content = b"" if body is None else json.dumps(body).encode()
    fields = {"content-type": "application/json", **{k.replace("_", "-"): v for k, v in headers.items()}}
    return httpx.Response(status, content=content, headers=fields)


def rate_limited(retry_after: str = "1") -> httpx.Response:
    return answer(429, {"code": "rate_limited", "message": "Slow down", "status": 429}, retry_after=retry_after)


class Script:
    def __init__(self, *answers: httpx.Response) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        return self.answers.pop(0)

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))

    def async_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))
