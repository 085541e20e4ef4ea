"""A typed client for the petstore HTTP API: sync (``Petstore``) and async (``AsyncPetstore``), on httpx."""

from ._client import AsyncPetstore, OnRetry, Petstore
from ._generated import (
    API_VERSION,
    Category,
    Error,
    ErrorCode,
    InventoryItem,
    InventoryUpdate,
    NewCategory,
    NewOrder,
    NewPet,
    Order,
    OrderUpdate,
    Pet,
    PetStatus,
)
from ._retry import NO_RETRIES, RetryPolicy
from .errors import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    PetstoreError,
    PreconditionFailedError,
    RateLimitedError,
    ServerError,
    ServiceUnavailableError,
)
from .webhooks import WebhookVerificationError, verify_webhook

__version__ = API_VERSION

__all__ = [
    "API_VERSION",
    "AsyncPetstore",
    "AuthenticationError",
    "BadRequestError",
    "Category",
    "ConflictError",
    "Error",
    "ErrorCode",
    "InventoryItem",
    "InventoryUpdate",
    "NO_RETRIES",
    "NewCategory",
    "NewOrder",
    "NewPet",
    "NotFoundError",
    "OnRetry",
    "Order",
    "OrderUpdate",
    "PermissionDeniedError",
    "Pet",
    "PetStatus",
    "Petstore",
    "PetstoreError",
    "PreconditionFailedError",
    "RateLimitedError",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailableError",
    "WebhookVerificationError",
    "verify_webhook",
]
