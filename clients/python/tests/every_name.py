"""A program that uses every public name of ``petstore_client``: test/e2e/python-client.test.ts type-checks it with
``mypy --strict`` against the installed wheel, and test_every_name.py runs it against the service and checks that no
name of ``__all__`` is missing here."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import time
import uuid

from petstore_client import (
    API_VERSION,
    NO_RETRIES,
    ApiKey,
    ApiKeyUpdate,
    AsyncPetstore,
    AuthenticationError,
    BadRequestError,
    Category,
    ConflictError,
    Error,
    ErrorCode,
    ErrorDetailsItem,
    InventoryChangedEvent,
    InventoryChangedEventDataDelta,
    InventoryChangedEventDataQuantity,
    InventoryItem,
    InventoryUpdate,
    IssuedApiKey,
    IssuedWebhook,
    Me,
    MeLimits,
    MeUsage,
    NewApiKey,
    NewCategory,
    NewOrder,
    NewPet,
    NewWebhook,
    NotFoundError,
    OnOpen,
    OnRetry,
    Order,
    OrderCancelledEvent,
    OrderCompletedEvent,
    OrderPlacedEvent,
    OrderPlacement,
    OrderPlacer,
    OrderUpdate,
    PermissionDeniedError,
    Pet,
    Pets,
    PetStatus,
    PetStatusChangedEvent,
    PetStatusChangedEventData,
    Petstore,
    PetstoreError,
    PetstoreEvent,
    PetstoreEventBody,
    PetstoreStreamEndedError,
    PetstoreStreamItem,
    PetstoreStreamReset,
    PlacedOrder,
    PreconditionFailedError,
    RateLimitedError,
    RateLimits,
    RetryPolicy,
    ServerError,
    ServiceUnavailableError,
    Webhook,
    WebhookDeliveryAttempt,
    WebhookEventType,
    WebhookVerificationError,
    verify_webhook,
)


def describe(body: PetstoreEventBody) -> str:
    """One line per event, each type narrowed to its own body."""
    if body["type"] == "order.placed":
        placed: OrderPlacedEvent = body
        return f"order {placed['data']['id']} placed"
    if body["type"] == "order.completed":
        completed: OrderCompletedEvent = body
        return f"order {completed['data']['id']} completed"
    if body["type"] == "order.cancelled":
        cancelled: OrderCancelledEvent = body
        return f"order {cancelled['data']['id']} cancelled"
    if body["type"] == "pet.status_changed":
        changed: PetStatusChangedEvent = body
        move: PetStatusChangedEventData = changed["data"]
        statuses: tuple[PetStatus, PetStatus] = (move["from"], move["to"])
        return f"pet {move['petId']} {statuses[0]} -> {statuses[1]}"
    inventory: InventoryChangedEvent = body
    data = inventory["data"]
    if "delta" in data:
        delta: InventoryChangedEventDataDelta = data
        return f"pet {delta['petId']} stock {delta['delta']:+d}"
    stock: InventoryChangedEventDataQuantity = data
    return f"pet {stock['petId']} stock set to {stock['quantity']}"


def wait_hint(error: PetstoreError) -> float | None:
    """How long a caller should wait before calling again, when the error says so."""
    if isinstance(error, RateLimitedError):
        return error.retry_after
    if isinstance(error, (ServiceUnavailableError, ServerError)):
        return 1.0
    return None


def signed(secret: str, body: str) -> dict[str, str]:
    """Standard Webhooks headers for ``body``, signed as the service signs a delivery."""
    message_id, timestamp = f"msg_{uuid.uuid4().hex}", str(int(time.time()))
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{message_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return {"webhook-id": message_id, "webhook-timestamp": timestamp, "webhook-signature": f"v1,{base64.b64encode(digest).decode()}"}


def main(url: str, key: str) -> list[str]:
    lines = [f"petstore_client {API_VERSION}"]
    waits: list[float] = []
    on_retry: OnRetry = lambda attempt, delay, answer: waits.append(delay)
    on_open: OnOpen = lambda response: lines.append(f"stream open ({response.status_code})")
    policy = RetryPolicy(max_retries=2, base_delay=0.2, max_delay=5.0)
    with Petstore(url, api_key=key, retry=policy, on_retry=on_retry, logger=logging.getLogger("every_name")) as petstore:
        me: Me = petstore.get_me()
        limits: MeLimits = me["limits"]
        usage: MeUsage = me["usage"]
        lines.append(f"calling as {me['role']}: {usage['minute']} of {limits['perMinute']} this minute")

        new_category: NewCategory = {"name": f"Every name {uuid.uuid4().hex[:8]}"}
        category: Category = petstore.create_category(new_category)
        new_pet: NewPet = {"name": "Every", "categoryId": category["id"]}
        pet: Pet = petstore.create_pet(new_pet)
        pets: Pets = petstore.list_pets(ids=[pet["id"]])
        stock: InventoryUpdate = {"quantity": 2}
        item: InventoryItem = petstore.set_inventory(pet["id"], stock)
        lines.append(f"pet {pets[0]['name']} with {item['quantity']} in stock")

        new_order: NewOrder = {"petId": pet["id"], "quantity": 1}
        order: Order = petstore.place_order(new_order)
        placed: PlacedOrder = petstore.get_order(order["id"], expand="placement")
        placement: OrderPlacement = placed["placement"]
        placer: OrderPlacer = placement["by"]
        lines.append(f"order {order['id']} placed by key {placer['id']}")
        completion: OrderUpdate = {"complete": True}
        petstore.update_order(order["id"], completion)
        lines.append(f"open orders of the pet: {len(petstore.list_orders(complete=False, pet_id=pet['id']))}")

        try:
            petstore.get_pet(999_999_999)
        except NotFoundError as missing:
            error: Error = missing.error
            code: ErrorCode | str = missing.code
            lines.append(f"{error['status']} {code}")
        try:
            petstore.create_pet({"name": "", "categoryId": category["id"]})
        except BadRequestError as invalid:
            details: list[ErrorDetailsItem] = invalid.details
            lines.append(f"400 on {details[0]['path']}")
        try:
            petstore.create_category(new_category)
        except ConflictError as taken:
            lines.append(f"409 {taken.code}")
        try:
            petstore.update_pet(pet["id"], new_pet, if_match='"p1r999"')
        except PreconditionFailedError as stale:
            lines.append(f"412 {stale.code} (wait: {wait_hint(stale)})")

        seen: PetstoreStreamItem
        for seen in petstore.events(last_event_id="0", on_open=on_open):
            if isinstance(seen, PetstoreStreamReset):
                lines.append(f"reset ({seen.reason}) after {seen.last_event_id}: from {seen.from_id}")
                continue
            event: PetstoreEvent = seen
            if event.body["type"] == "order.completed" and event.body["data"]["id"] == order["id"]:
                lines.append(describe(event.body))
                break

        new_key: NewApiKey = {"label": f"every name {uuid.uuid4().hex[:6]}", "role": "customer", "plan": "free"}
        issued: IssuedApiKey = petstore.create_api_key(new_key)
        relabel: ApiKeyUpdate = {"label": "every name (renamed)"}
        api_key: ApiKey = petstore.update_api_key(issued["id"], relabel)
        key_limits: RateLimits = api_key["limits"]
        lines.append(f"key {api_key['id']} {api_key['label']}: {key_limits['perMinute']} a minute")
        with Petstore(url, api_key=issued["key"], retry=NO_RETRIES) as customer:
            try:
                customer.create_pet(new_pet)
            except PermissionDeniedError as refused:
                lines.append(f"customer: {refused.status} {refused.code}")
        petstore.revoke_api_key(issued["id"])
        with Petstore(url, api_key=issued["key"], retry=None) as revoked:
            try:
                revoked.get_me()
            except AuthenticationError as unknown:
                lines.append(f"revoked key: {unknown.status} {unknown.code}")

        kinds: list[WebhookEventType] = ["order.placed"]
        new_hook: NewWebhook = {"url": f"{url}/every-name-hook", "events": kinds}
        issued_hook: IssuedWebhook = petstore.create_webhook(new_hook)
        hook: Webhook = petstore.get_webhook(issued_hook["id"])
        deliveries: list[WebhookDeliveryAttempt] = petstore.list_webhook_deliveries(hook["id"])
        body = '{"type":"order.placed"}'
        verify_webhook(issued_hook["secret"], signed(issued_hook["secret"], body), body)
        try:
            verify_webhook(issued_hook["secret"], signed(issued_hook["secret"], body), body + " ")
        except WebhookVerificationError:
            lines.append(f"webhook {hook['id']}: signature checked, {len(deliveries)} deliveries")
        petstore.delete_webhook(hook["id"])

        petstore.delete_pet(pet["id"])
        petstore.delete_category(category["id"])
    lines.append(asyncio.run(asynchronous(url, key)))
    lines.append(f"waits: {len(waits)}")
    return lines


async def asynchronous(url: str, key: str) -> str:
    async with AsyncPetstore(url, api_key=key) as petstore:
        me = await petstore.get_me()
        try:
            async for item in petstore.events(last_event_id="0", max_retries=0):
                return f"async: {me['role']} read {item.kind}"
        except PetstoreStreamEndedError as ended:
            return f"async: stream ended ({ended.reason})"
    return "async: no event"
