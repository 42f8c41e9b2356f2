"""What time does to a tournament: its start, each round's pairing and games, the games' results,
a round's deadline and the end. Run by the tournament's outbox entries (kind ``tournament``,
application/background/work.py; workers/tournament_jobs.py), each applied once:

- ``tn:<tournament>``, its step (application/tournaments/documents.py): ``advance`` does
  whatever the document says is due, one compare-and-set at a time, and each swap writes the
  next step. A round is paired in one swap (its tables, byes and each table's game id, chosen
  from the tournament, the round and the table, so never two games for one table), and its games
  are made after it (GameService makes a game of a given id once): a worker killed between the two
  leaves the step due now, and the next claim makes the games the pairing named. It never pairs
  a round twice: the round is in the document.
- ``tn:<game>``, written by the append that ends a tournament's game (application/reactions/
  tournaments.py): ``record`` puts its places and no-shows in the round, once (a table's places
  are written only while empty), then advances.
- ``tn:<game>:end``: play a game out by the clock (application/admin/game_ending.py, as a late
  turn is played): the game of a person who withdrew, and every game unfinished at the round's
  deadline. Its end is recorded as any other.

A round starts when the last game of the previous round ends, or at its deadline
(``round_seconds`` after its start) once its unfinished games were played out. A person who made
no move of their own in their game of a round is counted a no-show (their turns were all played
by the clock); the rule (domain/tournaments/) withdraws them after two.

Its people's news (application/person_stream/news.py) are outbox entries named by the round or the
end: a round's byes are written before the swap that marks its games made, and the swap that ends
the tournament marks it ``told: False``, so its step stays due until the end's news are written.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from application import settings
from application.admin.game_ending import PlayTurn, end
from application.games.game_service import GameService, SeatSpec
from application.lobby.ratings import BOT
from application.person_stream.entries import entries
from application.person_stream.news import tournament_news
from application.tournaments import pairing
from application.tournaments.documents import (
    CANCELLED,
    FINISHED,
    OPEN,
    RUNNING,
    current_round,
    next_due,
    round_over,
)
from application.tournaments.tournaments import Tournaments, ask_end
from domain import Edition, Layout, Options
from domain.standings import places
from events import keys
from events.outbox import now_ms
from events.person_streams import News
from events.serialization import now


def game_id(tournament_id: str, round_number: int, table: int) -> str:
    """A round's table's game id: the same for every worker that makes it."""
    return hashlib.sha256(f"{tournament_id}:{round_number}:{table}".encode()).hexdigest()[:32]


class Rounds:
    """The tournament's steps (see module doc)."""

    def __init__(self, tournaments: Tournaments, service: GameService) -> None:
        self.tournaments = tournaments
        self.documents = tournaments.documents
        self.service = service
        self.accounts = tournaments.accounts

    # -- the step ------------------------------------------------------------------------------

    def advance(self, tournament_id: str) -> str:
        """Do what is due now, step by step; returns the status it leaves the tournament in."""
        while True:
            raw, doc = self.tournaments.document(tournament_id)
            changed = self._next(doc)
            if changed is None:
                return str(doc["status"])
            if self.documents.swap(raw, changed):
                self._after(doc, changed)

    def keep_step(self, name: str, payload: str) -> bool:
        """A step claimed with nothing due (before its time, by a clock ahead): due again when
        the document says (True), instead of finished."""
        asked = json.loads(payload)
        found = self.documents.read(asked["tournament"])
        if found is None or found[1]["version"] != asked["version"]:
            return False
        due = next_due(found[1])
        return due is not None and due > now_ms() and self.service.outbox.renew(name, payload, due_ms=due)

    def _next(self, doc: dict[str, Any]) -> dict[str, Any] | None:
        """The document's next version, None when nothing is due."""
        at = now_ms()
        if doc["status"] == OPEN:
            if doc["starts"] > at:
                return None
            playing = [e for e in doc["entrants"] if not e["withdrawn"]]
            if len(playing) < doc["min_players"]:
                return {**doc, "status": CANCELLED, "ended": now(), "reason": "too_few_players", "told": False}
            ratings = self.tournaments.ratings  # each entrant's rating as it is at the start ranks them throughout
            rated = [
                {**e, "rating": ratings.current(e["account"] or f"{BOT}{e['level']}").shown} for e in doc["entrants"]
            ]
            return {**doc, "status": RUNNING, "entrants": rated}
        if doc.get("told") is False:  # ended, its people not told yet (a document made before has no key)
            self._tell_end(doc)
            return {**doc, "told": True}
        if doc["status"] != RUNNING:
            return None
        round_ = current_round(doc)
        if round_ is None or round_over(round_):
            if absent := pairing.absent_now(doc):  # the no-show rule, before the next pairing
                return {
                    **doc,
                    "entrants": [{**e, "withdrawn": e["withdrawn"] or e["id"] in absent} for e in doc["entrants"]],
                }
            number = len(doc["rounds"]) + 1
            paired = pairing.pair(doc) if number <= pairing.rounds_in(doc) else None
            if paired is None:
                return {**doc, "status": FINISHED, "ended": now(), "reason": None, "told": False}
            tables, byes = paired
            new = {
                "number": number,
                "started": at,
                "deadline": at + doc["round_seconds"] * 1000,
                "tables": [
                    {"game": game_id(doc["id"], number, i), "players": players, "places": None, "no_shows": []}
                    for i, players in enumerate(tables)
                ],
                "byes": byes,
                "made": False,
                "overdue": False,
            }
            return {**doc, "rounds": [*doc["rounds"], new]}
        if not round_["made"]:
            withdrawn = {e["id"] for e in doc["entrants"] if e["withdrawn"]}
            for i, table in enumerate(round_["tables"]):
                self._make(doc, round_["number"], table)
                if i == 0 and (pause := settings.TOURNAMENT_PAUSE_MS.read()):
                    time.sleep(pause / 1000)  # the kill drill's moment: a round half made
                if withdrawn & set(table["players"]):  # withdrew while it was being made
                    ask_end(self.service, doc["id"], table["game"])
            self._tell_byes(doc, round_)
            return self._with_round(doc, {**round_, "made": True})
        if round_["deadline"] <= at and not round_["overdue"]:
            for table in round_["tables"]:
                if table["places"] is None:
                    ask_end(self.service, doc["id"], table["game"])
            return self._with_round(doc, {**round_, "overdue": True})
        return None

    @staticmethod
    def _with_round(doc: dict[str, Any], round_: dict[str, Any]) -> dict[str, Any]:
        return {**doc, "rounds": [*doc["rounds"][:-1], round_]}

    def _after(self, before: dict[str, Any], after: dict[str, Any]) -> None:
        """What a swap leaves to do outside the document: the creator's place freed at the start."""
        if before["status"] == OPEN and after["status"] != OPEN:
            self.tournaments.client.zrem(keys.account_tournaments(after["creator"]["account"], "created"), after["id"])

    # -- the people's news (application/person_stream/news.py) ------------------------------------

    def _tell_byes(self, doc: dict[str, Any], round_: dict[str, Any]) -> None:
        """Each bye of the round, to its entrant's account: written before the swap that marks the
        round made, under names of the round's own, so a repeat writes nothing twice."""
        accounts = {e["id"]: e["account"] for e in doc["entrants"] if e["account"]}
        news = {
            accounts[p]: [tournament_news("bye", doc, round_=round_["number"])] for p in round_["byes"] if p in accounts
        }
        self._tell(doc["id"], f"bye-{round_['number']}", news)

    def _tell_end(self, doc: dict[str, Any]) -> None:
        """The end, to each entrant's account: a cancellation to those not withdrawn, a finish to
        all, with their place in the final standings."""
        if doc["status"] == CANCELLED:
            told = [e["account"] for e in doc["entrants"] if e["account"] and not e["withdrawn"]]
            self._tell(doc["id"], "cancelled", {a: [tournament_news("cancelled", doc)] for a in told})
            return
        place = {line["player"]: line["place"] for line in pairing.standings(doc)}
        news = {
            e["account"]: [tournament_news("finished", doc, place=place.get(e["id"]))]
            for e in doc["entrants"]
            if e["account"]
        }
        self._tell(doc["id"], "finished", news)

    def _tell(self, tournament_id: str, what: str, news: dict[str, list[News]]) -> None:
        self.service.hand_on(entries(tournament_id, what, news))

    def _make(self, doc: dict[str, Any], number: int, table: dict[str, Any]) -> None:
        """The table's game, made once under its id, each seat its entrant's (kept in their
        accounts even when a killed worker made the game and not the seats)."""
        game = table["game"]
        entrants = {e["id"]: e for e in doc["entrants"]}
        seated = [entrants[player] for player in table["players"]]
        if not self.service.store.version(game):
            self._make_game(doc, number, game, seated)
        self.accounts.seat_all(game, {seat: e["account"] for seat, e in enumerate(seated) if e["account"]})

    def _make_game(self, doc: dict[str, Any], number: int, game: str, seated: list[dict[str, Any]]) -> None:
        seats = [
            SeatSpec("bot", e["name"], e["level"]) if e["level"] else SeatSpec("human", e["name"], account=e["account"])
            for e in seated
        ]
        options = doc["options"]
        self.service.create(
            Options(len(seats), Edition(options["edition"]), options["expansion"], Layout.STANDARD),
            seats,
            turn_deadline=doc["turn_deadline"],
            deadline_level=doc["deadline_level"],
            clock=doc["clock"],
            rated=doc["rated"],
            origin={"tournament": doc["id"], "round": number},
            game=game,
        )

    # -- a game's end --------------------------------------------------------------------------

    def record(self, tournament_id: str, game: str) -> None:
        """Put the ended game's places and no-shows in its round, once; then advance (which
        withdraws whom the no-show rule says once the round is over)."""
        state = self.service.state(game)
        if not state.finished:
            return
        settings = self.service.settings(game)
        moved = {int(e.actor) for e in self.service.store.read(game) if e.actor.isdigit()}
        while True:
            raw, doc = self.tournaments.document(tournament_id)
            found = next(
                ((r, t) for r in doc["rounds"] for t in r["tables"] if t["game"] == game and t["places"] is None),
                None,
            )
            if found is None:
                break  # recorded already
            round_, table = found
            absent = [
                player
                for seat, player in enumerate(table["players"])
                if settings["seats"][seat]["kind"] == "human" and seat not in moved
            ]
            recorded_table = {**table, "places": list(places(state)), "no_shows": absent}
            rounds = [
                {**r, "tables": [recorded_table if t["game"] == game else t for t in r["tables"]]} if r is round_ else r
                for r in doc["rounds"]
            ]
            if self.documents.swap(raw, {**doc, "rounds": rounds}):
                break
        self.advance(tournament_id)

    def end_game(self, game: str, play_turn: PlayTurn) -> None:
        """Play the game out by the clock (the deadline's level for its people, each bot its own)."""
        if not self.service.state(game).finished:
            end(self.service, game, play_turn)
