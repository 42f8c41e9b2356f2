"""Write openapi.yaml: ``python -m cli.write_openapi``. The document comes from the operations'
declarations and the schemas (service/openapi.py), its examples from a session recorded
against the real API (cli/openapi_examples.py); tests/api/test_openapi.py fails when the
committed file is not current."""

from __future__ import annotations

from pathlib import Path

from service.openapi import render

from .generated_file import write
from .openapi_examples import record

TARGET = Path(__file__).resolve().parent.parent / "openapi.yaml"


def document() -> str:
    return render(record())


def main() -> int:
    return write(TARGET, document)


if __name__ == "__main__":
    raise SystemExit(main())
