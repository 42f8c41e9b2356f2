"""The API's version, declared here once: openapi.yaml's ``info.version`` is written from it, the
client packages (clients/) and CHANGELOG.md must agree with it (tests/tooling/test_api_versions.py).

Semantic versioning of the contract (docs/versioning.md): a change a client written against the
last released document could trip on (an operation, a response field or an accepted value
removed, a request field newly required, ...) needs a new major version; anything added or
deprecated a new minor one; a change of wording or examples only a new patch. The last released
document is kept under openapi/released/, and ``python -m cli.api_changes`` says what the
document changed since it and whether this version says so.
"""

API_VERSION = "2.1.0"
