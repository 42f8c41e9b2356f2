"""How many tables of which size a round has, and how many byes: shared by both formats."""

from __future__ import annotations


def table_sizes(players: int, table_size: int) -> tuple[tuple[int, ...], int]:
    """The sizes of a round's tables (full ones first) and its number of byes.

    Tables seat ``table_size``, and ``table_size - 1`` where the field does not divide: a short
    table rather than byes, since a bye is a round without a game. Byes are left only where even
    that does not fit: one for an odd field at tables of 2, one for five at tables of 4, one for a
    lone player. A field smaller than a short table (two left at tables of 4) plays at one table.
    So a round never has more than one bye."""
    if table_size == 2 or players < 2:
        return (2,) * (players // 2), players % 2
    if players < table_size - 1:
        return (players,), 0
    for byes in range(players + 1):
        seated = players - byes
        for short in range(table_size):
            full, rest = divmod(seated - short * (table_size - 1), table_size)
            if seated - short * (table_size - 1) >= 0 and rest == 0:
                return (table_size,) * full + (table_size - 1,) * short, byes
    raise AssertionError("unreachable: no players are seated at zero tables")
