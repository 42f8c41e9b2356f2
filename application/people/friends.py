"""A person's friends list: the people they follow, each with their rating and their current
games (where to watch each, and whose turn it is), a page at a time. Read in a few pipelines
whatever the page's length: the names, the seats, the summaries, the ratings."""

from __future__ import annotations

from typing import Any

from application.lobby.ratings import Ratings
from application.people.played import names_of, played, seats_of
from application.people.relations import Relations
from events.projection import GameIndex

#: The current games shown for each friend, the last moved first.
CURRENT_GAMES = 10
#: The friends on one page of the list, by default and at most.
PAGE, MOST_ON_A_PAGE = 50, 100


class Friends:
    def __init__(self, relations: Relations, ratings: Ratings, index: GameIndex) -> None:
        self.relations = relations
        self.ratings = ratings
        self.index = index
        self.client = relations.client

    def page(self, account: str, limit: int = PAGE, after: int = 0) -> dict[str, Any]:
        """The people ``account`` follows from the ``after``-th on (the earliest followed first),
        at most ``limit``; ``next`` the position of the next page, or None. A deleted account
        they followed is left out."""
        following = self.relations.following(account)
        chosen = following[after : after + limit]
        named = names_of(self.client, chosen)
        present = [p for p in chosen if p in named]
        seats = seats_of(self.client, present)
        summaries = self.index.summaries({game for held in seats.values() for game in held})
        friends = []
        for person in present:
            current = [g for g in played(summaries, seats[person]) if g["status"] == "active"]
            friends.append(
                {
                    "player": person,
                    **named[person],
                    "rating": self.ratings.current(person).document()["rating"],
                    "games": current[:CURRENT_GAMES],
                }
            )
        more = after + limit < len(following)
        return {"friends": friends, "next": str(after + limit) if more else None}
