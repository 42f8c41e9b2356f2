"""The HTTP routes, one blueprint per feature, each operation declared once (service/operation.py).

``api`` holds the API's blueprints, so that the rate limits set on it (service/ratelimit.py)
apply to them all; ``pages`` (the static documents and pages) is registered beside it, unlimited."""

from __future__ import annotations

from flask import Blueprint

from ..operation import DECLARED
from .account_routes import account_api
from .alert_routes import alert_api
from .bot_routes import bot_api
from .challenge_routes import challenges
from .chat_routes import chat
from .feed_routes import feeds
from .game_routes import games
from .lobby_routes import lobby
from .meta_routes import meta, pages
from .moderation_routes import moderation
from .oauth_routes import oauth_api
from .passkey_routes import passkey_api
from .people_routes import people_api
from .person_stream_routes import people
from .play_routes import play
from .replay_routes import replay
from .review_routes import review
from .search_routes import search_api
from .tournament_routes import tournaments
from .webhook_routes import webhooks

API = (
    games,
    lobby,
    challenges,
    play,
    feeds,
    webhooks,
    chat,
    replay,
    review,
    meta,
    account_api,
    bot_api,
    passkey_api,
    alert_api,
    people,
    oauth_api,
    moderation,
    people_api,
    search_api,
    tournaments,
)
api = Blueprint("api", __name__)
for feature in API:
    api.register_blueprint(feature)

#: Every operation, blueprint by blueprint: the order of openapi.yaml's paths.
OPERATIONS = sorted(DECLARED, key=lambda operation: [*API, pages].index(operation.blueprint))
