import os

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def service() -> tuple[str, str]:
    """The running service the end-to-end tests talk to; CI sets PETSTORE_REQUIRE_SERVICE so they cannot be skipped."""
    url, key = os.environ.get("PETSTORE_URL"), os.environ.get("PETSTORE_API_KEY")
    if not url or not key:
        if os.environ.get("PETSTORE_REQUIRE_SERVICE"):
            pytest.fail("PETSTORE_URL and PETSTORE_API_KEY must name a running service")
        pytest.skip("no service: set PETSTORE_URL and PETSTORE_API_KEY (a staff or admin key)")
    return url, key
