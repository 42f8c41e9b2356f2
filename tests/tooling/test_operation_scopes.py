"""Every operation that takes an account credential names the scope it needs, in its declaration
(service/operation.py refuses one that does not) and in openapi.yaml's security requirements,
from the one list of scopes (application/accounts/scopes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from flask import Blueprint

from application.accounts.scopes import ACCOUNT, SCOPES, TOKEN_SCOPES
from service.operation import PERSON, Operation, Reply

DOCUMENT = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
ACCOUNT_CREDENTIALS = ("personalToken", "session")


def _operations():
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def test_every_operation_that_takes_an_account_credential_names_one_scope_in_openapi():
    unscoped, granted_beyond_tokens, taking = [], [], 0
    for name, operation in _operations():
        for requirement in operation.get("security", []):
            for scheme, scopes in requirement.items():
                if scheme not in ACCOUNT_CREDENTIALS:
                    continue
                taking += 1
                if len(scopes) != 1 or scopes[0] not in SCOPES:
                    unscoped.append((name, scheme, scopes))
                elif scheme == "personalToken" and scopes[0] not in TOKEN_SCOPES:
                    granted_beyond_tokens.append(name)
    assert taking > 40  # the check reads the requirements where they are
    assert unscoped == []
    assert granted_beyond_tokens == []  # no token holds `account`: those operations are the session's


def test_the_token_scheme_lists_every_scope_with_what_it_allows():
    described = DOCUMENT["components"]["securitySchemes"]["personalToken"]["description"]
    assert all(f"- `{name}`: {text}" in described for name, text in SCOPES.items())


@pytest.mark.parametrize(
    ("security", "scope"), [(PERSON, None), (None, "read"), (PERSON, "admin"), ([{"seatToken": []}], ACCOUNT)]
)
def test_a_declaration_names_a_scope_exactly_when_it_takes_an_account_credential(security, scope):
    with pytest.raises(ValueError, match="scope"):
        Operation(
            Blueprint("unscoped", __name__),
            "get",
            "/nowhere",
            id="nowhere",
            tag="service",
            summary="An operation never registered.",
            responses={200: Reply("Nothing.")},
            security=security,
            scope=scope,
        )
