"""A player's profile, as anyone may see it (``GET /players/{player}`` and its page): the name
others see, the rating with its history, recent games, how many games of each edition and
player count, followers, and the people they follow when they made that list public. Never an
email: the profile is built from public facts only."""

from __future__ import annotations

from collections import Counter
from typing import Any

from application.accounts.account_service import Accounts
from application.accounts.shown_text import shown
from application.lobby.ratings import Ratings
from application.people.played import names_of, played, seats_of
from application.people.relations import Relations
from application.refusals import NotFound
from events.projection import GameIndex

#: The most recent games a profile lists.
RECENT_GAMES = 10
#: The rating history a profile carries (newest first): the chart's points.
HISTORY_SHOWN = 100
#: The people a public friends list shows on a profile (the earliest followed first).
FRIENDS_SHOWN = 100


class Profiles:
    def __init__(self, accounts: Accounts, ratings: Ratings, relations: Relations, index: GameIndex) -> None:
        self.accounts = accounts
        self.ratings = ratings
        self.relations = relations
        self.index = index

    def profile(self, player: str, viewer: str | None = None) -> dict[str, Any]:
        """``player``'s profile as ``viewer`` (None: someone signed out) sees it: the friends
        list only when public or the viewer's own."""
        if not self.accounts.exists(player):
            raise NotFound(f"no player {player}")
        found = self.accounts.profile(player)
        seats = seats_of(self.accounts.client, [player])[player]
        games = played(self.index.summaries(seats), seats)
        public = self.relations.privacy(player)["friends_public"]
        friends = None
        if public or viewer == player:
            following = self.relations.following(player)[:FRIENDS_SHOWN]
            named = names_of(self.accounts.client, following)
            friends = [{"player": p, **named[p]} for p in following if p in named]
        return {
            "player": player,
            "name": shown(found["display_name"]),
            **({"bot": True} if found["bot"] else {}),
            **self.ratings.current(player).document(),
            "history": self.ratings.history(player)[:HISTORY_SHOWN],
            "recent_games": games[:RECENT_GAMES],
            "counts": counts(games),
            "followers": self.relations.follower_count(player),
            "friends_public": public,
            "friends": friends,
            "yours": self._yours(viewer, player),
        }

    def _yours(self, viewer: str | None, player: str) -> dict[str, bool] | None:
        """Whether the viewer follows, mutes and blocks ``player`` (None: signed out, or theirs)."""
        if viewer is None or viewer == player:
            return None
        return {
            "following": self.relations.follows(viewer, player),
            "muting": player in self.relations.muted(viewer),
            "blocking": self.relations.blocks(viewer, player),
        }


def counts(games: list[dict[str, Any]]) -> dict[str, Any]:
    """How many games, finished ones, and games of each edition and of each player count."""
    return {
        "games": len(games),
        "finished": sum(g["status"] == "finished" for g in games),
        "by_edition": dict(sorted(Counter(g["edition"] for g in games).items())),
        "by_players": {str(n): c for n, c in sorted(Counter(g["players"] for g in games).items())},
    }
