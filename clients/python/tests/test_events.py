"""events(): the stream's protocol on a scripted service, then against the running one."""

import json
import logging
import threading
import uuid
from collections.abc import Iterator

import httpx
import pytest

from fakes import Script, answer, rate_limited
from petstore_client import (
    AsyncPetstore,
    Order,
    OrderCancelledEvent,
    OrderPlacedEvent,
    AuthenticationError,
    Petstore,
    PetstoreEvent,
    PetstoreStreamEndedError,
    PetstoreStreamItem,
    PetstoreStreamReset,
    RetryPolicy,
    ServiceUnavailableError,
)

ORDER: Order = {"id": 7, "petId": 1, "quantity": 1, "complete": False}
PLACED: OrderPlacedEvent = {"type": "order.placed", "timestamp": "2026-12-01T10:00:00.000Z", "data": ORDER}
CANCELLED: OrderCancelledEvent = {"type": "order.cancelled", "timestamp": "2026-12-01T10:00:00.000Z", "data": ORDER}


def sse(*messages: str) -> httpx.Response:
    return httpx.Response(200, content="".join(messages).encode(), headers={"content-type": "text/event-stream"})


def event(id: str, body: OrderPlacedEvent | OrderCancelledEvent) -> str:
    return f"id: {id}\nevent: {body['type']}\ndata: {json.dumps(body)}\n\n"


def control(name: str, **body: str) -> str:
    return f"event: {name}\ndata: {json.dumps(body)}\n\n"


def unavailable() -> httpx.Response:
    return answer(503, {"code": "service_unavailable", "message": "Down", "status": 503})


def the_script() -> Script:
    return Script(
        rate_limited("3"),
        unavailable(),
        sse("retry: 1500\n: connected\n\n", event("5", PLACED), control("end", reason="max_lifetime")),
        sse(control("reset", reason="expired", lastEventId="5", **{"from": "9"}), event("10", CANCELLED)),
        sse(": heartbeat\n\n", control("end", reason="key_revoked")),
    )


def check(script: Script, items: list[PetstoreStreamItem], waits: list[float], ended: PetstoreStreamEndedError) -> None:
    assert items == [
        PetstoreEvent(id="5", body=PLACED),
        PetstoreStreamReset(reason="expired", last_event_id="5", from_id="9"),
        PetstoreEvent(id="10", body=CANCELLED),
    ]
    # 429: its Retry-After; 503: jittered back-off; max_lifetime: at once; a dropped stream: the `retry:` advice.
    assert waits == [3.0, 1.0, 0.0, 1.5]
    assert [r.headers.get("last-event-id") for r in script.requests] == ["1", "1", "1", "5", "10"]
    assert all(r.headers["accept"] == "text/event-stream" and r.url.path == "/events" for r in script.requests)
    assert ended.reason == "key_revoked"


def test_events_resume_reset_end_and_back_off(caplog: pytest.LogCaptureFixture) -> None:
    script, waits, items = the_script(), list[float](), list[PetstoreStreamItem]()
    petstore = Petstore("http://petstore.test", http_client=script.client(), sleep=waits.append, retry=RetryPolicy(random=lambda: 1.0))
    with caplog.at_level(logging.WARNING, logger="petstore_client"), pytest.raises(PetstoreStreamEndedError) as ended:
        for item in petstore.events(last_event_id="1"):
            items.append(item)
    check(script, items, waits, ended.value)
    assert [r.getMessage() for r in caplog.records] == [
        "petstore_client: GET http://petstore.test/events answered 429; waiting 3.0 s (retry-after)",
        "petstore_client: GET http://petstore.test/events ended; reconnecting in 1.5 s",
    ]


@pytest.mark.anyio
async def test_async_events_resume_reset_end_and_back_off() -> None:
    script, waits, items = the_script(), list[float](), list[PetstoreStreamItem]()

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async with AsyncPetstore(
        "http://petstore.test", http_client=script.async_client(), sleep=sleep, retry=RetryPolicy(random=lambda: 1.0)
    ) as petstore:
        with pytest.raises(PetstoreStreamEndedError) as ended:
            async for item in petstore.events(last_event_id="1"):
                items.append(item)
    check(script, items, waits, ended.value)


def test_a_refused_stream_raises_and_failures_in_a_row_are_capped() -> None:
    refused = Script(answer(401, {"code": "unauthorized", "message": "No key", "status": 401}))
    with pytest.raises(AuthenticationError):
        next(Petstore("http://petstore.test", http_client=refused.client()).events())
    busy = Script(unavailable(), unavailable())
    waits: list[float] = []
    with pytest.raises(ServiceUnavailableError):
        next(Petstore("http://petstore.test", http_client=busy.client(), sleep=waits.append).events(max_retries=1))
    assert len(busy.requests) == 2 and len(waits) == 1


def test_a_message_cut_between_chunks_is_delivered_whole() -> None:
    text = event("3", PLACED)

    def chunks() -> Iterator[bytes]:
        for i in range(0, len(text), 7):
            yield text[i : i + 7].encode()

    script = Script(httpx.Response(200, content=chunks(), headers={"content-type": "text/event-stream"}))
    petstore = Petstore("http://petstore.test", http_client=script.client())
    first = next(petstore.events())
    assert isinstance(first, PetstoreEvent) and first.id == "3" and first.body["type"] == "order.placed"


def test_a_connection_that_fails_or_goes_quiet_is_resumed_after_the_last_id() -> None:
    def then_quiet() -> Iterator[bytes]:
        yield event("4", PLACED).encode()
        raise httpx.ReadTimeout("no byte for idle_timeout")

    script = Script(
        httpx.Response(200, content=then_quiet(), headers={"content-type": "text/event-stream"}),
        sse(event("6", CANCELLED)),
    )
    waits: list[float] = []
    petstore = Petstore("http://petstore.test", http_client=script.client(), sleep=waits.append)
    stream = petstore.events()
    assert [next(stream), next(stream)] == [PetstoreEvent(id="4", body=PLACED), PetstoreEvent(id="6", body=CANCELLED)]
    stream.close()
    assert [r.headers.get("last-event-id") for r in script.requests] == [None, "4"] and waits == [2.0]


def test_events_against_the_service_resume_after_the_last_id_and_reset_an_unknown_one(service: tuple[str, str]) -> None:
    url, key = service
    with Petstore(url, api_key=key) as petstore:
        item = next(i for i in petstore.iter_inventory() if i["quantity"] > 0)
        order = petstore.place_order({"petId": item["petId"], "quantity": 1})
        petstore.cancel_order(order["id"])
        seen: list[PetstoreEvent] = []
        # Last-Event-ID 0 replays every kept event: ours are among them, in order.
        for each in petstore.events(last_event_id="0"):
            assert isinstance(each, PetstoreEvent)
            seen.append(each)
            if each.body["type"] == "order.cancelled" and each.body["data"]["id"] == order["id"]:
                break
        placed = next(i for i, e in enumerate(seen) if e.body["type"] == "order.placed" and e.body["data"]["id"] == order["id"])
        resumed = next(petstore.events(last_event_id=seen[placed].id))
        assert resumed == seen[placed + 1]
        reset = next(petstore.events(last_event_id="123"))
        assert isinstance(reset, PetstoreStreamReset) and reset.last_event_id == "123" and reset.from_id


def test_events_end_for_good_when_the_key_is_revoked(service: tuple[str, str]) -> None:
    url, key = service
    with Petstore(url, api_key=key) as admin:
        staff = admin.create_api_key({"label": f"events {uuid.uuid4().hex[:6]}", "role": "staff", "plan": "pro"})
        opened = threading.Event()

        def revoke_once_open() -> None:
            opened.wait()
            admin.revoke_api_key(staff["id"])

        revoker = threading.Thread(target=revoke_once_open)
        revoker.start()
        try:
            with Petstore(url, api_key=staff["key"]) as petstore, pytest.raises(PetstoreStreamEndedError) as ended:
                for _ in petstore.events(on_open=lambda _response: opened.set()):
                    pass
        finally:
            opened.set()
            revoker.join()
    assert ended.value.reason == "key_revoked"
