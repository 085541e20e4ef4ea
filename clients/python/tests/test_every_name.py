"""every_name.py uses every public name (mypy --strict checks how), and runs against the service."""

import ast
import inspect
import re
from pathlib import Path

import petstore_client
from petstore_client import _generated

import every_name


def test_every_public_name_is_used_by_the_program() -> None:
    tree = ast.parse(Path(every_name.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    missing = [name for name in petstore_client.__all__ if name not in imported or name not in used]
    assert missing == []


def test_every_generated_schema_is_public() -> None:
    source = inspect.getsource(_generated)
    schemas = re.findall(r"^(?:class (\w+)\(TypedDict\):|(\w+): TypeAlias = |(\w+) = TypedDict\()", source, re.MULTILINE)
    names = {name for groups in schemas for name in groups if name}
    assert len(names) >= 30
    assert sorted(names - set(petstore_client.__all__)) == []


def test_the_program_runs_against_the_service(service: tuple[str, str]) -> None:
    url, key = service
    lines = every_name.main(url, key)
    assert lines[0] == f"petstore_client {petstore_client.__version__}"
    for expected in [
        r"calling as admin: \d+ of \d+ this minute",
        r"pet Every with 2 in stock",
        r"order \d+ placed by key \d+",
        r"open orders of the pet: 0",
        r"404 not_found",
        r"400 on body\.name",
        r"409 category_name_taken",
        r"412 precondition_failed \(wait: None\)",
        r"stream open \(200\)",
        r"order \d+ completed",
        r"key \d+ every name \(renamed\): \d+ a minute",
        r"customer: 403 forbidden",
        r"revoked key: 401 unauthorized",
        r"webhook \d+: signature checked, 0 deliveries",
        r"async: admin read (event|reset)",
    ]:
        assert any(re.fullmatch(expected, line) for line in lines), (expected, lines)
