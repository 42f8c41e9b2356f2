"""The language-neutral generator behind every shuffle of a game (docs/rulings.md, R15).

A stream of bytes is HMAC-SHA256(key=seed, msg=label || ":" || counter), counter a 64-bit
big-endian integer from 0, blocks concatenated. Integers below n come from successive 8-byte
big-endian words by rejection (discard words >= 2**64 - 2**64 % n). A shuffle is Fisher-Yates
from the last position down: for i = n-1 .. 1, j = below(i+1), swap a[i] and a[j].
Each use has its own label (``layout``, ``deck``, ``first-player``, ``reshuffle/1`` ...), so
an auditor re-derives any one of them without replaying the others.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
_WORD = 2**64


def commitment(seed: bytes) -> str:
    """The public commitment to a secret seed: SHA-256 of its bytes, hex."""
    return hashlib.sha256(seed).hexdigest()


class Stream:
    """Deterministic uniform integers for one (seed, label)."""

    def __init__(self, seed: bytes, label: str) -> None:
        self._seed = seed
        self._label = label.encode()
        self._counter = 0
        self._buffer = b""

    def _word(self) -> int:
        if len(self._buffer) < 8:
            block = hmac.new(self._seed, self._label + b":" + self._counter.to_bytes(8, "big"), hashlib.sha256).digest()
            self._counter += 1
            self._buffer += block
        word, self._buffer = self._buffer[:8], self._buffer[8:]
        return int.from_bytes(word, "big")

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _WORD - _WORD % n
        while True:
            word = self._word()
            if word < limit:
                return word % n


def shuffled(seed: bytes, label: str, items: Sequence[T]) -> tuple[T, ...]:
    """Fisher-Yates shuffle of ``items`` driven by the (seed, label) stream."""
    stream = Stream(seed, label)
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = stream.below(i + 1)
        result[i], result[j] = result[j], result[i]
    return tuple(result)


def choice(seed: bytes, label: str, n: int) -> int:
    """One uniform index below n from the (seed, label) stream."""
    return Stream(seed, label).below(n)
