"""Standard Webhooks signature verification (https://www.standardwebhooks.com/), as the service signs."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Mapping


class WebhookVerificationError(Exception):
    """The request is not a webhook this secret signed, or it is too old or too new."""


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: bytes | str,
    *,
    tolerance_seconds: int = 300,
    now: float | None = None,
) -> None:
    """Raises ``WebhookVerificationError`` unless ``body`` carries a valid ``webhook-signature`` for ``secret``.

    ``secret`` is the subscription's ``whsec_…`` secret; ``headers`` the request's headers (any case); ``body`` the
    raw body as received, before any JSON parsing. A ``webhook-timestamp`` further than ``tolerance_seconds`` from
    ``now`` is refused (replays). During a secret rotation either of the two signatures sent is accepted.
    """
    lowered = {key.lower(): value for key, value in headers.items()}
    message_id = lowered.get("webhook-id")
    timestamp = lowered.get("webhook-timestamp")
    signatures = lowered.get("webhook-signature")
    if not message_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is not a number") from None
    if abs((time.time() if now is None else now) - sent_at) > tolerance_seconds:
        raise WebhookVerificationError("webhook-timestamp is too far from now")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    payload = body.encode() if isinstance(body, str) else body
    signed = f"{message_id}.{timestamp}.".encode() + payload
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for candidate in signatures.split():
        version, _, signature = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            return
    raise WebhookVerificationError("no signature matches")
