"""Expansions, booleans, the wait warning, /me and the administration: on a scripted service, then the running one."""

import logging
import uuid

import pytest

from fakes import Script, answer, rate_limited
from petstore_client import (
    AsyncPetstore,
    Order,
    Petstore,
    PlacedOrder,
    RateLimitedError,
    RetryPolicy,
)

PLACED: PlacedOrder = {
    "id": 7,
    "petId": 1,
    "quantity": 1,
    "complete": False,
    "placement": {"at": "2026-12-01T10:00:00.000Z", "by": {"id": 3, "label": "shop"}},
}


def test_expand_and_booleans_go_out_as_the_api_spells_them() -> None:
    script = Script(answer(200, [PLACED]), answer(200, PLACED), answer(200, []))
    petstore = Petstore("http://petstore.test", http_client=script.client())
    placed: list[PlacedOrder] = petstore.list_orders(complete=False, expand="placement")
    one: PlacedOrder = petstore.get_order(7, expand="placement")
    plain: list[Order] = petstore.list_orders(complete=True)
    assert placed[0]["placement"]["by"]["label"] == one["placement"]["by"]["label"] == "shop" and plain == []
    assert [str(r.url) for r in script.requests] == [
        "http://petstore.test/store/orders?complete=false&expand=placement",
        "http://petstore.test/store/orders/7?expand=placement",
        "http://petstore.test/store/orders?complete=true",
    ]


def test_a_wait_over_a_second_warns_through_logging_and_a_short_one_does_not(caplog: pytest.LogCaptureFixture) -> None:
    script = Script(rate_limited("13"), rate_limited("0"), answer(200, []))
    waits: list[float] = []
    petstore = Petstore("http://petstore.test", http_client=script.client(), sleep=waits.append, retry=RetryPolicy(random=lambda: 0.0))
    with caplog.at_level(logging.WARNING, logger="petstore_client"):
        assert petstore.list_pets() == []
    assert waits == [13.0, 0.0]
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            "petstore_client",
            logging.WARNING,
            "petstore_client: GET http://petstore.test/pets answered 429; waiting 13.0 s (retry-after) before attempt 2 of 5",
        )
    ]


def test_logger_none_silences_the_warning(caplog: pytest.LogCaptureFixture) -> None:
    script = Script(rate_limited("13"), answer(200, []))
    petstore = Petstore("http://petstore.test", http_client=script.client(), sleep=lambda _: None, logger=None)
    with caplog.at_level(logging.DEBUG):
        petstore.list_pets()
    assert [r for r in caplog.records if r.name == "petstore_client"] == []


def test_expansions_and_booleans_against_the_service(service: tuple[str, str]) -> None:
    url, key = service
    with Petstore(url, api_key=key) as petstore:
        me = petstore.get_me()
        item = next(i for i in petstore.iter_inventory() if i["quantity"] > 0)
        order = petstore.place_order({"petId": item["petId"], "quantity": 1})
        try:
            placed = petstore.get_order(order["id"], expand="placement")
            assert placed["placement"]["by"]["id"] == me["id"] and placed["placement"]["by"].get("label") == me["label"]
            open_orders = petstore.list_orders(complete=False, expand="placement", placed_by=me["id"], limit=100)
            assert order["id"] in [o["id"] for o in open_orders] and all(not o["complete"] for o in open_orders)
            assert all(o["placement"]["by"]["id"] == me["id"] for o in open_orders)
            assert order["id"] not in [o["id"] for o in petstore.iter_orders(complete=True)]
            assert "placement" not in petstore.get_order(order["id"])
        finally:
            petstore.cancel_order(order["id"])


def test_me_and_the_administration_of_keys_and_webhooks(service: tuple[str, str]) -> None:
    url, key = service
    with Petstore(url, api_key=key) as admin:
        me = admin.get_me()
        assert me["role"] == "admin" and me["usage"]["minute"] >= 1 and me["limits"]["perMinute"] >= 1
        issued = admin.create_api_key({"label": f"py {uuid.uuid4().hex[:6]}", "role": "customer", "plan": "free"})
        with Petstore(url, api_key=issued["key"]) as customer:
            assert customer.get_me()["id"] == issued["id"]
            assert customer.get_me()["plan"] == "free"
        assert admin.update_api_key(issued["id"], {"plan": "pro"})["plan"] == "pro"
        assert admin.get_api_key(issued["id"])["plan"] == "pro"
        assert issued["id"] in [k["id"] for k in admin.iter_api_keys()]
        assert admin.unban_api_key(issued["id"])["id"] == issued["id"]
        admin.revoke_api_key(issued["id"])
        assert admin.get_api_key(issued["id"])["revoked"] is True

        # A loopback target: the service runs with PETSTORE_WEBHOOK_ALLOW_PRIVATE=true (test/e2e/python-client.test.ts).
        hook = admin.create_webhook({"url": f"{url}/petstore-hook", "events": ["order.placed"]})
        assert hook["secret"].startswith("whsec_") and admin.get_webhook(hook["id"])["events"] == ["order.placed"]
        assert hook["id"] in [w["id"] for w in admin.list_webhooks()]
        rotated = admin.rotate_webhook_secret(hook["id"])
        assert rotated["secret"] != hook["secret"] and "previousSecretExpiresAt" in rotated
        assert admin.list_webhook_deliveries(hook["id"]) == []
        admin.delete_webhook(hook["id"])
        assert hook["id"] not in [w["id"] for w in admin.iter_webhooks()]


def test_a_429_from_the_service_warns_before_the_wait(service: tuple[str, str], caplog: pytest.LogCaptureFixture) -> None:
    url, key = service
    with Petstore(url, api_key=key) as admin:
        # One request a day: the second is refused until the day's end, whatever the minute.
        limited = admin.create_api_key(
            {"label": "one a day", "role": "customer", "plan": "enterprise", "limits": {"perMinute": 1, "perDay": 1}}
        )
    waits: list[float] = []
    policy = RetryPolicy(max_retries=1, max_delay=86_400.0)
    with Petstore(url, api_key=limited["key"], retry=policy, sleep=waits.append) as petstore:
        petstore.get_me()
        with caplog.at_level(logging.WARNING, logger="petstore_client"), pytest.raises(RateLimitedError) as raised:
            petstore.get_me()
    assert len(waits) == 1 and waits[0] > 1.0 and raised.value.retry_after is not None
    [warning] = [r.getMessage() for r in caplog.records if r.name == "petstore_client"]
    assert warning.startswith(f"petstore_client: GET {url}/me answered 429; waiting ")
    assert warning.endswith(" s (retry-after) before attempt 2 of 2")


@pytest.mark.anyio
async def test_async_expansions_and_me_against_the_service(service: tuple[str, str]) -> None:
    url, key = service
    async with AsyncPetstore(url, api_key=key) as petstore:
        me = await petstore.get_me()
        orders = [o async for o in petstore.iter_orders(expand="placement", complete=False)]
        assert all(isinstance(o["placement"]["at"], str) for o in orders) and me["role"] == "admin"
