import pytest

from petstore_client import WebhookVerificationError, verify_webhook

# The test vector of the Standard Webhooks specification (standard-webhooks/standard-webhooks, spec/standard-webhooks.md).
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
HEADERS = {
    "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
    "webhook-timestamp": "1614265330",
    "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
}
BODY = '{"test": 2432232314}'


def test_the_standard_webhooks_test_vector_verifies() -> None:
    verify_webhook(SECRET, HEADERS, BODY, now=1614265330)
    verify_webhook(SECRET, {k.upper(): v for k, v in HEADERS.items()}, BODY.encode(), now=1614265330 + 299)


def test_one_of_two_signatures_after_a_rotation_is_enough() -> None:
    rotated = {**HEADERS, "webhook-signature": "v1,bm90IGl0 " + HEADERS["webhook-signature"]}
    verify_webhook(SECRET, rotated, BODY, now=1614265330)


@pytest.mark.parametrize(
    ("headers", "body", "now"),
    [
        (HEADERS, '{"test": 2432232315}', 1614265330),
        ({**HEADERS, "webhook-id": "msg_other"}, BODY, 1614265330),
        ({**HEADERS, "webhook-signature": "v1,AAAA"}, BODY, 1614265330),
        ({k: v for k, v in HEADERS.items() if k != "webhook-signature"}, BODY, 1614265330),
        (HEADERS, BODY, 1614265330 + 301),
        (HEADERS, BODY, 1614265330 - 301),
    ],
)
def test_anything_else_is_refused(headers: dict[str, str], body: str, now: int) -> None:
    with pytest.raises(WebhookVerificationError):
        verify_webhook(SECRET, headers, body, now=now)


def test_another_secret_is_refused() -> None:
    with pytest.raises(WebhookVerificationError):
        verify_webhook("whsec_" + "QUJDREVGR0hJSktMTU5PUA==", HEADERS, BODY, now=1614265330)
