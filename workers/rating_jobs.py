"""The RQ job that rates a finished rated game, exactly once (application/lobby/ratings.py).

The append that ends the game wrote the outbox entry ``rt:<game>``; the dispatcher leases it
to this job, which removes it only once every seat's rating is applied and each rated person's
stream has its ``rating.changed`` (application/person_stream/news.py). A job that dies lets the
lease run out, and the retried job applies the ratings recorded with the game, never anew, and
writes each stream's news once (marked with the game).
"""

from __future__ import annotations

import json

from rq import get_current_job

from application.games.game_service import GameService
from application.lobby.ratings import Ratings
from application.person_stream.news import rating_changed
from application.wiring import build, connect, store_client_for_job, store_url
from events.person_streams import PersonStreams


def rate(name: str, payload: str) -> str:
    """The RQ job: rate the game the outbox entry ``name`` names."""
    job = get_current_job()
    client = store_client_for_job(job.connection) if job is not None else connect(store_url())
    components = build(client=client)
    return rate_now(components.service, components.ratings, name, payload)


def rate_now(service: GameService, ratings: Ratings, name: str, payload: str) -> str:
    game = json.loads(payload)["game"]
    recorded = ratings.rate_game(game, service.state(game), service.seats(game))
    if recorded is not None:
        streams = PersonStreams(service.store)
        for account, news in rating_changed(game, recorded).items():
            streams.write(account, f"{game}:rating", [news])
    service.outbox.finish(name, payload)
    return "rated" if recorded is not None else "not rateable"
