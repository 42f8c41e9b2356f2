"""The tournament's document as the rules see it (domain/tournaments/): its format, its entrants,
the rounds so far and their finished tables; and what the rules answer, as the document keeps it.
The only module of the application that calls the pairing rules."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from domain import tournaments as rules


def _format(fmt: dict[str, Any], min_players: int, max_players: int) -> rules.Format:
    return rules.Format(fmt["kind"], fmt["table_size"], min_players, max_players, fmt.get("rounds"))


def format_problem(fmt: dict[str, Any], min_players: int, max_players: int) -> tuple[str, str] | None:
    """The first field the rules refuse in the format and why, or None."""
    problems = rules.validate(_format(fmt, min_players, max_players))
    return (problems[0].field, "; ".join(f"{p.field}: {p.reason}" for p in problems)) if problems else None


def _entrants(doc: dict[str, Any]) -> list[rules.Entrant]:
    return [rules.Entrant(e["id"], float(e["rating"])) for e in doc["entrants"]]


def _rounds(doc: dict[str, Any]) -> list[rules.Round]:
    return [
        rules.Round(
            r["number"],
            tuple(rules.Table(tuple(t["players"])) for t in r["tables"]),
            tuple(r["byes"]),
        )
        for r in doc["rounds"]
    ]


def _outcomes(doc: dict[str, Any]) -> list[rules.Outcome]:
    return [
        rules.Outcome(tuple(t["players"]), tuple(t["places"]))
        for r in doc["rounds"]
        for t in r["tables"]
        if t["places"] is not None
    ]


def _withdrawn(doc: dict[str, Any]) -> set[str]:
    return {e["id"] for e in doc["entrants"] if e["withdrawn"]}


def rounds_in(doc: dict[str, Any]) -> int:
    """How many rounds the tournament plays: a Swiss's own number, a round robin's schedule's."""
    if doc["format"]["kind"] == "swiss":
        return int(doc["format"]["rounds"])
    return len(_schedule(doc))


def _schedule(doc: dict[str, Any]) -> list[rules.Round]:
    """A round robin's schedule, of the entrants at its start (withdrawals only empty seats)."""
    return rules.round_robin(_entrants(doc), doc["format"]["table_size"])


def pair(doc: dict[str, Any]) -> tuple[list[list[str]], list[str]] | None:
    """The next round's tables (entrant ids in seat order) and byes; None when fewer than two
    players are left to play it."""
    withdrawn = _withdrawn(doc)
    if sum(1 for e in doc["entrants"] if e["id"] not in withdrawn) < 2:
        return None
    number = len(doc["rounds"]) + 1
    size = doc["format"]["table_size"]
    if doc["format"]["kind"] == "swiss":
        paired = rules.pair_swiss(_entrants(doc), _rounds(doc), _outcomes(doc), withdrawn, number, table_size=size)
        return [list(t.players) for t in paired.tables], list(paired.byes)
    played = rules.round_without(_schedule(doc)[number - 1], withdrawn)
    return [list(t.players) for t in played.tables], list(played.byes)


def _no_shows(doc: dict[str, Any]) -> list[list[str]]:
    return [[p for t in r["tables"] for p in t["no_shows"]] for r in doc["rounds"]]


def absences(doc: dict[str, Any]) -> dict[str, int]:
    """Each entrant's rounds without a move of their own."""
    counted = rules.count_absences(_no_shows(doc))
    return {e["id"]: counted.get(e["id"], 0) for e in doc["entrants"]}


def absent_now(doc: dict[str, Any]) -> set[str]:
    """Whom the no-show rule withdraws now, before the next round is paired."""
    return rules.absent_after(_no_shows(doc), _withdrawn(doc))


def standings(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The standings after the finished tables, best first (points, then the documented tie-breaks)."""
    if not doc["entrants"]:
        return []
    lines = rules.standings(
        _entrants(doc),
        _rounds(doc),
        _outcomes(doc),
        _withdrawn(doc),
        table_size=doc["format"]["table_size"],
        absences=absences(doc),
    )
    return [asdict(line) for line in lines]
