"""Against a running service (PETSTORE_URL, PETSTORE_API_KEY: an admin key, with npm start's demo data)."""

import uuid

import pytest

from petstore_client import AsyncPetstore, ConflictError, NotFoundError, Petstore


def test_pages_cover_the_whole_list(service: tuple[str, str]) -> None:
    url, key = service
    with Petstore(url, api_key=key) as petstore:
        everything = petstore.list_pets(limit=100)
        assert len(everything) >= 8
        assert list(petstore.iter_pets(limit=2)) == everything


def test_typed_errors_from_the_service(service: tuple[str, str]) -> None:
    url, key = service
    with Petstore(url, api_key=key) as petstore:
        with pytest.raises(NotFoundError) as missing:
            petstore.get_order(999_999)
        assert missing.value.error["status"] == 404
        name = f"Typed {uuid.uuid4().hex[:8]}"
        petstore.create_category({"name": name})
        with pytest.raises(ConflictError) as taken:
            petstore.create_category({"name": name})
        assert taken.value.code == "category_name_taken"


def test_one_idempotency_key_places_one_order(service: tuple[str, str]) -> None:
    url, key = service
    with Petstore(url, api_key=key) as petstore:
        item = next(i for i in petstore.iter_inventory() if i["quantity"] > 0)
        idempotency_key = str(uuid.uuid4())
        body = {"petId": item["petId"], "quantity": 1}
        first = petstore.request("POST", "/store/orders", body=body, idempotency_key=idempotency_key)
        again = petstore.request("POST", "/store/orders", body=body, idempotency_key=idempotency_key)
        assert first.status_code == again.status_code == 201
        assert again.json()["id"] == first.json()["id"]
        assert again.headers["idempotent-replayed"] == "true"
        assert petstore.get_inventory_item(item["petId"])["quantity"] == item["quantity"] - 1
        petstore.cancel_order(first.json()["id"])


def test_conditional_update_against_the_service(service: tuple[str, str]) -> None:
    url, key = service
    with Petstore(url, api_key=key) as petstore:
        before = petstore.get_inventory_item(1)["quantity"]
        after = petstore.conditional_update("/store/inventory/1", lambda item: {"quantity": item["quantity"] + 1})
        assert after["quantity"] == before + 1
        petstore.set_inventory(1, {"quantity": before})


@pytest.mark.anyio
async def test_async_client_against_the_service(service: tuple[str, str]) -> None:
    url, key = service
    async with AsyncPetstore(url, api_key=key) as petstore:
        pets = [pet async for pet in petstore.iter_pets(limit=3)]
        assert pets == await petstore.list_pets(limit=100)
