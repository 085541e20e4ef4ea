import pytest

from fakes import Script, answer, rate_limited
from petstore_client import (
    NO_RETRIES,
    AsyncPetstore,
    Petstore,
    RateLimitedError,
    RetryPolicy,
    ServiceUnavailableError,
)

ORDER = {"id": 7, "petId": 1, "quantity": 1, "complete": False}


def test_two_429s_then_success_under_one_idempotency_key_honouring_retry_after() -> None:
    script = Script(rate_limited("2"), rate_limited("1"), answer(201, ORDER))
    waits: list[float] = []
    seen: list[tuple[int, float, int]] = []
    petstore = Petstore(
        "http://petstore.test",
        api_key="k",
        http_client=script.client(),
        sleep=waits.append,
        retry=RetryPolicy(random=lambda: 0.0),
        on_retry=lambda attempt, delay, response: seen.append((attempt, delay, response.status_code if response else 0)),
    )
    assert petstore.place_order({"petId": 1, "quantity": 1}) == ORDER
    keys = [request.headers["idempotency-key"] for request in script.requests]
    assert len(keys) == 3 and len(set(keys)) == 1 and keys[0]
    assert waits == [2.0, 1.0]
    assert seen == [(1, 2.0, 429), (2, 1.0, 429)]
    assert all(request.headers["x-api-key"] == "k" for request in script.requests)


def test_each_logical_post_has_its_own_key() -> None:
    script = Script(answer(201, ORDER), answer(201, ORDER))
    petstore = Petstore("http://petstore.test", http_client=script.client())
    petstore.place_order({"petId": 1, "quantity": 1})
    petstore.place_order({"petId": 1, "quantity": 1})
    first, second = (request.headers["idempotency-key"] for request in script.requests)
    assert first != second


def test_503_without_retry_after_backs_off_exponentially_with_jitter_within_the_cap() -> None:
    unavailable = {"code": "service_unavailable", "message": "Down", "status": 503}
    script = Script(*[answer(503, unavailable) for _ in range(4)], answer(200, []))
    waits: list[float] = []
    petstore = Petstore(
        "http://petstore.test",
        http_client=script.client(),
        sleep=waits.append,
        retry=RetryPolicy(max_retries=4, base_delay=0.5, max_delay=1.5, random=lambda: 1.0),
    )
    assert petstore.list_pets() == []
    assert waits == [0.5, 1.0, 1.5, 1.5]


def test_jitter_draws_below_the_exponential_bound() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=30.0, random=lambda: 0.25)
    assert [policy.delay(attempt, None) for attempt in range(4)] == [0.25, 0.5, 1.0, 2.0]
    assert policy.delay(4, None) is None


def test_gives_up_after_max_retries_with_the_typed_error() -> None:
    script = Script(rate_limited("1"), rate_limited("1"), rate_limited("3"))
    waits: list[float] = []
    petstore = Petstore(
        "http://petstore.test",
        http_client=script.client(),
        sleep=waits.append,
        retry=RetryPolicy(max_retries=2, random=lambda: 0.0),
    )
    with pytest.raises(RateLimitedError) as raised:
        petstore.list_pets()
    assert raised.value.code == "rate_limited" and raised.value.retry_after == 3.0
    assert waits == [1.0, 1.0] and len(script.requests) == 3


def test_retry_after_beyond_the_cap_is_not_waited_out() -> None:
    script = Script(rate_limited("49"))
    waits: list[float] = []
    petstore = Petstore("http://petstore.test", http_client=script.client(), sleep=waits.append)
    with pytest.raises(RateLimitedError) as raised:
        petstore.list_pets()
    assert raised.value.retry_after == 49.0 and waits == []


@pytest.mark.parametrize("retry", [NO_RETRIES, None])
def test_retries_can_be_turned_off(retry: RetryPolicy | None) -> None:
    script = Script(answer(503, {"code": "service_unavailable", "message": "Down", "status": 503}))
    waits: list[float] = []
    petstore = Petstore("http://petstore.test", http_client=script.client(), sleep=waits.append, retry=retry)
    with pytest.raises(ServiceUnavailableError):
        petstore.list_pets()
    assert waits == [] and len(script.requests) == 1


def test_other_errors_are_not_retried() -> None:
    script = Script(answer(409, {"code": "insufficient_stock", "message": "No", "status": 409}))
    petstore = Petstore("http://petstore.test", http_client=script.client(), sleep=lambda _: None)
    with pytest.raises(Exception):
        petstore.place_order({"petId": 1, "quantity": 5})
    assert len(script.requests) == 1


@pytest.mark.anyio
async def test_async_two_429s_then_success_under_one_key() -> None:
    script = Script(rate_limited("1"), rate_limited("1"), answer(201, ORDER))
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async with AsyncPetstore(
        "http://petstore.test", http_client=script.async_client(), sleep=sleep, retry=RetryPolicy(random=lambda: 0.0)
    ) as petstore:
        assert await petstore.place_order({"petId": 1, "quantity": 1}) == ORDER
    assert len({request.headers["idempotency-key"] for request in script.requests}) == 1
    assert len(script.requests) == 3 and waits == [1.0, 1.0]
