import pytest

from fakes import Script, answer
from petstore_client import (
    AsyncPetstore,
    BadRequestError,
    ConflictError,
    NotFoundError,
    Petstore,
    PetstoreError,
    PreconditionFailedError,
)


def test_errors_are_typed_and_carry_the_error_body() -> None:
    body = {
        "code": "validation_failed",
        "message": "The request body is not valid",
        "status": 400,
        "details": [{"path": "body.name", "message": "Expected 1 to 100 characters after trimming"}],
    }
    script = Script(answer(400, body), answer(409, {"code": "category_name_taken", "message": "Taken", "status": 409}))
    petstore = Petstore("http://petstore.test", http_client=script.client())
    with pytest.raises(BadRequestError) as raised:
        petstore.create_pet({"name": "", "categoryId": 1})
    assert raised.value.status == 400 and raised.value.code == "validation_failed"
    assert raised.value.details == body["details"] and raised.value.error == body
    with pytest.raises(ConflictError) as conflict:
        petstore.create_category({"name": "Dogs"})
    assert isinstance(conflict.value, PetstoreError) and conflict.value.code == "category_name_taken"


def test_an_answer_that_is_not_the_error_shape_still_raises_a_typed_error() -> None:
    script = Script(answer(502, None))
    petstore = Petstore("http://petstore.test", http_client=script.client(), retry=None)
    with pytest.raises(PetstoreError) as raised:
        petstore.list_pets()
    assert raised.value.status == 502 and raised.value.code == "unexpected_answer"


def test_paging_follows_link_next_with_the_filters() -> None:
    script = Script(
        answer(200, [{"id": 1}, {"id": 2}], link='</pets?status=available&limit=2&after=2>; rel="next"'),
        answer(200, [{"id": 3}]),
    )
    petstore = Petstore("http://petstore.test", http_client=script.client())
    assert [pet["id"] for pet in petstore.iter_pets(status=["available", "pending"], limit=2)] == [1, 2, 3]
    assert script.requests[0].url.params["status"] == "available,pending"
    assert str(script.requests[1].url) == "http://petstore.test/pets?status=available&limit=2&after=2"


def test_conditional_update_sends_if_match_and_reapplies_after_412() -> None:
    stale = {"code": "precondition_failed", "message": "Stale", "status": 412}
    script = Script(
        answer(200, {"petId": 1, "quantity": 3, "status": "available"}, etag='"i1r3"'),
        answer(412, stale),
        answer(200, {"petId": 1, "quantity": 4, "status": "available"}, etag='"i1r4"'),
        answer(200, {"petId": 1, "quantity": 9, "status": "available"}, etag='"i1r5"'),
    )
    petstore = Petstore("http://petstore.test", http_client=script.client())
    updated = petstore.conditional_update("/store/inventory/1", lambda item: {"quantity": item["quantity"] + 5})
    assert updated["quantity"] == 9
    puts = [r for r in script.requests if r.method == "PUT"]
    assert [r.headers["if-match"] for r in puts] == ['"i1r3"', '"i1r4"']
    assert [r.content for r in puts] == [b'{"quantity":8}', b'{"quantity":9}']


def test_conditional_update_gives_up_after_its_attempts() -> None:
    stale = {"code": "precondition_failed", "message": "Stale", "status": 412}
    current = {"petId": 1, "quantity": 3, "status": "available"}
    script = Script(*[a for _ in range(2) for a in (answer(200, current, etag='"i1r3"'), answer(412, stale))])
    petstore = Petstore("http://petstore.test", http_client=script.client())
    with pytest.raises(PreconditionFailedError):
        petstore.conditional_update("/store/inventory/1", lambda item: item, attempts=2)


@pytest.mark.anyio
async def test_async_paging_and_errors() -> None:
    script = Script(
        answer(200, [{"id": 1}], link='</categories?after=1>; rel="next"'),
        answer(200, [{"id": 2}]),
        answer(404, {"code": "not_found", "message": "No category 9", "status": 404}),
    )
    async with AsyncPetstore("http://petstore.test", http_client=script.async_client()) as petstore:
        assert [c["id"] async for c in petstore.iter_categories()] == [1, 2]
        with pytest.raises(NotFoundError):
            await petstore.get_category(9)
