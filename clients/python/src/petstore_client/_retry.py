"""When to retry and how long to wait: shared by the sync and the async client."""

from __future__ import annotations

import random as _random
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone

import httpx

RETRIED_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    """Back-off after 429 and 503 (and connection failures of calls that are safe to repeat).

    The wait honours ``Retry-After`` when the answer has one (plus up to ``base_delay`` of jitter); otherwise it is
    exponential with full jitter: a random time up to ``base_delay * 2 ** attempt``, at most ``max_delay``. A
    ``Retry-After`` longer than ``max_delay`` is not waited out: the error is raised at once, since calling earlier
    would only be refused again (and counts towards a ban). ``max_retries=0`` turns retrying off.
    """

    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    random: Callable[[], float] = _random.random

    def delay(self, attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds to wait before the next attempt (``attempt`` counts from 0), or None to stop."""
        if attempt >= self.max_retries:
            return None
        jitter = self.random()
        retry_after = retry_after_seconds(response) if response is not None else None
        if retry_after is not None:
            return None if retry_after > self.max_delay else retry_after + jitter * self.base_delay
        return jitter * min(self.max_delay, self.base_delay * 2.0**attempt)


NO_RETRIES = RetryPolicy(max_retries=0)


def retry_after_seconds(response: httpx.Response) -> float | None:
    """``Retry-After`` as seconds: delta-seconds or an HTTP-date."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
