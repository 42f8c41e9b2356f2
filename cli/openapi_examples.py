"""Examples for openapi.yaml, recorded from the real API rather than written by hand.

``record()`` plays a short scripted session against the app on an in-memory Redis (fakeredis,
a dev dependency: this runs when the document is generated, never in the service); everything
it imports is imported before the randomness is fixed, so that the session draws the same
values whoever calls it and keeps
each operation's request and response bodies. Randomness is fixed (``os.urandom`` is seeded
for the session) and timestamps are set to one instant, so the document is reproducible and
tests/api/test_openapi.py can check that the committed file is current. Every example is thus a
body the service really sent; the contract tests check them against their schemas too.
"""

from __future__ import annotations

import base64
import hashlib
import os
import random
import re
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any
from unittest import mock

import fakeredis  # a dev dependency: the document is written by developers, never by the service
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from application.games.log_review import review_log
from application.review.computation import computed
from application.review.reviews import Reviews
from events.outbox import now_ms
from service.app import create_app
from workers import webhook_delivery as deliveries
from workers.person_stream_jobs import write_now
from workers.rating_jobs import rate_now
from workers.tournament_jobs import apply_now
from workers.turn_jobs import play

from .soft_authenticator import SoftPasskey

INSTANT = "2026-11-26T12:00:00"
INSTANT_EPOCH = 1795694400.0  #: INSTANT (UTC) in seconds since the epoch
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?")
WEBHOOK_HOST = "203.0.113.7"  #: a documentation address (RFC 5737), allowed for the session
SEED = 1  #: fixes every id, token and game seed of the recording
SHOWN_EVENTS = 6  #: a long list of events is cut to its first few in an example
SHOWN_TILES = 3  #: so is the city's list of tiles (of about twenty), wherever a view or an event shows it


def _fixed(value: Any) -> Any:
    """``value`` with every timestamp set to ``INSTANT`` (as many sub-second digits, zone kept)."""
    if isinstance(value, dict):
        return {k: _fixed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fixed(v) for v in value]
    if isinstance(value, str):
        return _TIME.sub(lambda m: INSTANT + re.sub(r"\d", "0", m.group()[len(INSTANT) :]), value)
    return value


def _few_tiles(value: Any) -> Any:
    """``value`` with every ``city`` list cut to its first ``SHOWN_TILES`` tiles."""
    if isinstance(value, dict):
        return {k: v[:SHOWN_TILES] if k == "city" and isinstance(v, list) else _few_tiles(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_few_tiles(v) for v in value]
    return value


def _short(doc: dict[str, Any], key: str = "events") -> dict[str, Any]:
    return {**doc, key: doc[key][:SHOWN_EVENTS]}


def _short_seat(seat: dict[str, Any]) -> dict[str, Any]:
    """A seat's review with its curve and draws cut to their first few points."""
    return {**seat, "curve": seat["curve"][:SHOWN_EVENTS], "draws": seat["draws"][:SHOWN_EVENTS]}


class _Workers:
    """Stands in for the queue (a Handoff): keeps the work of each kind (bot turns, webhook
    deliveries, ratings, alerts) to run in-process."""

    def __init__(self) -> None:
        self.handed: defaultdict[str, list[Any]] = defaultdict(list)

    def hand(self, kind: Any, work: Any, job_id: str) -> None:
        self.handed[kind.name].append(work)

    def queued(self, job_id: str) -> bool:
        return False


def record() -> dict[str, dict[str, Any]]:
    """operationId -> {"request": body, "response": body, optional "problem": (status, body)}."""
    randomness = random.Random(SEED)
    fake = randomness.randbytes
    with (
        mock.patch("os.urandom", fake),
        mock.patch("random._urandom", fake),  # what secrets' SystemRandom draws from
        mock.patch.dict("os.environ", {"WEBHOOK_ALLOW_HOSTS": WEBHOOK_HOST, "VAPID_PRIVATE_KEY": ""}),
    ):
        return _few_tiles(_fixed(_session()))


def _session() -> dict[str, dict[str, Any]]:
    workers = _Workers()
    app = create_app({"REDIS_CLIENT": fakeredis.FakeRedis(), "HANDOFF": workers, "RATE_LIMIT": 0, "SSE_SECONDS": 0})
    app.logger.disabled = True  # the requests of the recording are not worth a log line each
    service = app.extensions["bluemoon"].service
    http = app.test_client()
    found: dict[str, dict[str, Any]] = {}
    problems: dict[str, tuple[int, Any]] = {}

    def call(operation: str, method: str, path: str, body: Any = None, token: str | None = None, **kw: Any) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = http.open(path, method=method, json=body, headers={**headers, **kw.pop("headers", {})}, **kw)
        assert response.status_code < 400, (operation, response.get_json())
        found.setdefault(operation, {"request": body, "response": response.get_json()})
        return response

    def refused(operation: str, method: str, path: str, body: Any, token: str | None = None, **kw: Any) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = http.open(path, method=method, json=body, headers={**headers, **kw.pop("headers", {})})
        problems[operation] = (response.status_code, response.get_json())

    def run_bots(limit: int = 400) -> None:
        while workers.handed["turn"]:
            limit -= 1
            assert limit > 0, "the bots' example game did not end: record with another SEED"
            t = workers.handed["turn"].pop(0)
            if t.reason == "bot":
                play(service, t.game, t.seat, t.turn, t.played_as or t.level, t.reason)

    create = {
        "seats": [{"kind": "human", "name": "Ada"}, {"kind": "bot", "level": "greedy"}, {"kind": "open"}],
        "expansion": True,
        "turn_deadline": 86400,
        "deadline_level": "greedy",
    }
    created = call("createGame", "POST", "/games", create).get_json()
    refused("createGame", "POST", "/games", {"seats": [{"kind": "human"}], "edition": "2007"})
    game, ada = created["game"], created["seats"][0]["token"]
    invite = created["seats"][2]["invite"]
    joined = call("joinSeat", "POST", f"/games/{game}/seats/2/join", {"invite": invite, "name": "Bo"}).get_json()
    bo = joined["token"]
    run_bots()
    view = call("getGame", "GET", f"/games/{game}", token=ada).get_json()
    call("listGames", "GET", "/games?my_turn=true", token=ada if view["turn"]["seat"] == 0 else bo)
    mover = ada if view["turn"]["seat"] == 0 else bo
    legal = call("legalCommands", "GET", f"/games/{game}/legal", token=mover).get_json()
    command = next(c for c in legal["commands"] if c["type"] == "move")
    other = bo if mover == ada else ada
    refused("postCommand", "POST", f"/games/{game}/commands", {**command, "expected_version": view["version"]}, other)
    call(
        "postCommand",
        "POST",
        f"/games/{game}/commands",
        command,
        token=mover,
        headers={"If-Match": f'"{view["version"]}"', "Idempotency-Key": "move-1"},
    )
    found["postCommand"]["response"] = _short(found["postCommand"]["response"])
    call("listEvents", "GET", f"/games/{game}/events?after={view['version']}", token=mover)
    stream = http.get(f"/games/{game}/stream?after={view['version']}", headers={"Authorization": f"Bearer {mover}"})
    found["streamEvents"] = {"request": None, "response": stream.get_data(as_text=True)}
    call("getGameAtVersion", "GET", f"/games/{game}/versions/3", token=ada)

    hook_body = {"url": f"https://{WEBHOOK_HOST}/bluemoon", "events": ["turn.started", "game.ended"]}
    hook = call("createWebhook", "POST", f"/games/{game}/webhooks", hook_body, token=ada).get_json()
    call("listWebhooks", "GET", f"/games/{game}/webhooks", token=ada)
    call("getWebhook", "GET", f"/games/{game}/webhooks/{hook['id']}", token=ada)

    finished = call(
        "createGame",
        "POST",
        "/games",
        {"seats": [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "greedy"}]},
    ).get_json()["game"]
    run_bots()
    tokens = {0: ada, 2: bo}
    first = service.state(game).turn.number
    while not (service.state(game).turn.seat == 0 and service.state(game).turn.number > first):
        state = service.state(game)
        if state.turn.seat in tokens:  # the humans end their turns at once
            end = {"type": "end_turn", "expected_version": state.version}
            http.post(
                f"/games/{game}/commands", json=end, headers={"Authorization": f"Bearer {tokens[state.turn.seat]}"}
            )
        run_bots()
    service.dispatch()  # a dispatcher's pass hands the deliveries on
    with mock.patch.object(deliveries, "post", lambda target, body, headers: 204):  # the receiver says 204
        for claim in workers.handed["webhook"]:
            deliveries.attempt(service.client, service.outbox, claim.name, claim.payload)
    call("listWebhookDeliveries", "GET", f"/games/{game}/webhooks/{hook['id']}/deliveries", token=ada)
    for attempt in found["listWebhookDeliveries"]["response"]["deliveries"]:
        attempt["ms"] = 42.0  # measured, so it differs run to run; a plausible round trip instead
    call("deleteWebhook", "DELETE", f"/games/{game}/webhooks/{hook['id']}", token=ada)
    found["deleteWebhook"]["response"] = None
    log = call("getLog", "GET", f"/games/{finished}/log").get_json()
    found["getLog"]["response"] = _short(log)
    call("auditGame", "GET", f"/games/{finished}/audit")
    call("health", "GET", "/healthz")
    call("catalogue", "GET", "/catalogue")
    found["catalogue"]["response"]["buildings"] = found["catalogue"]["response"]["buildings"][:2]  # of 24
    call("ready", "GET", "/readyz")
    pages = [
        ("openapi", "/openapi.yaml"),
        ("rulings", "/rulings"),
        ("docs", "/docs"),
        ("lobby", "/"),
        ("ratingsPage", "/ratings"),
    ]
    for operation, path in [*pages, ("playPage", f"/play/{game}")]:
        text = http.get(path).get_data(as_text=True)
        found[operation] = {"request": None, "response": "\n".join(text.splitlines()[:3]) + "\n…"}
    found["openapiJson"] = {"request": None, "response": {"openapi": "3.1.0", "info": {"title": "Blue Moon City"}}}
    token_id = _accounts(call, refused, http, found, game, ada)
    passkey_id = _passkeys(call, refused, found)
    table, player, joined_token = _lobby(call, refused, http, app.extensions["bluemoon"], workers, run_bots)
    delivery = _webhook_asks(call, service, workers, game, ada)
    _news(call, refused, http, found, app.extensions["bluemoon"], workers, joined_token)  # draws request ids too
    # the service worker and the manifest come last: each request draws an id, and ids drawn
    # before the others' would change every later example
    worker = http.get("/sw.js").get_data(as_text=True)
    found["serviceWorker"] = {"request": None, "response": "\n".join(worker.splitlines()[:3]) + "\n…"}
    manifest = http.get("/manifest.webmanifest").get_json(force=True)
    found["webManifest"] = {"request": None, "response": {k: manifest[k] for k in ("name", "start_url", "display")}}
    changelog = http.get("/changelog").get_data(as_text=True)  # its first lines: the format's own, they stay
    found["changelog"] = {"request": None, "response": "\n".join(changelog.splitlines()[:3]) + "\n…"}
    app_id = _oauth(call, http, found)
    _suspended, report = _moderation(call, refused, http, found, app.extensions["bluemoon"], game)
    challenge = _challenges(call, refused, http, found, app.extensions["bluemoon"], workers)
    message = _chat(call, refused, game, ada, bo)
    account = _people(call, refused, http, game, player)  # late: its requests draw ids too
    _searches(call, refused, http, found, player)  # late: its requests draw ids, which would change the others'
    tournament = _tournaments(call, refused, http, found)  # last, for the same reason
    _review(call, found, service, workers, finished)  # after them: its requests draw ids too
    _tournament_news(http, found, app.extensions["bluemoon"], workers)  # after them all, for the same reason
    refused("playSocket", "GET", f"/games/{game}/socket", None, mover)  # a plain GET: no WebSocket to open
    found["playSocket"] = {"request": None, "response": None}
    for operation, problem in problems.items():
        found[operation]["problem"] = problem
    found["parameters"] = {
        "game": game,
        "seat": 2,
        "version": 3,
        "hook": hook["id"],
        "delivery": delivery,
        "token": token_id,
        "passkey": passkey_id,
        "table": table,
        "player": player,
        "subscription": found.pop("subscription"),
        "app": app_id,
        "report": report,
        "challenge": challenge,
        "account": account,  # (the people's: the moderators' suspended one, ``suspended``, shows in their examples)
        "room": "seats",
        "message": message,
        "tournament": tournament,
    }
    return found


EXAMPLE_WORLDS = 2  #: worlds a turn in the example review (one to choose the best plan, one to cost it)


def _review(call: Any, found: dict[str, Any], service: Any, workers: _Workers, finished: str) -> None:
    """The bots' finished game's review: asked for at its end, computed as the reviews worker does."""
    call("requestReview", "POST", f"/games/{finished}/review")  # asked for at its end: still pending
    reviews = Reviews(service.store, service.outbox)
    # the example shows the review's shape: reviewed in EXAMPLE_WORLDS worlds a turn, not the
    # service's SAMPLES, it costs a second rather than the tests' most expensive half minute
    with mock.patch("application.review.computation.review_log", partial(review_log, samples=EXAMPLE_WORLDS)):
        for claim in workers.handed["review"]:
            reviews.review(claim.name, claim.payload, claim.tries, partial(computed, service))
    review = call("getReview", "GET", f"/games/{finished}/review").get_json()
    seats = [_short_seat(seat) for seat in review["review"]["seats"]]
    found["getReview"]["response"] = {**review, "review": {**review["review"], "seats": seats}}


def _chat(call: Any, refused: Any, game: str, ada: str, bo: str) -> str:
    """Two seats talk in the seats' room; one deletes a message. Returns the message kept."""
    with mock.patch("application.chat.messages.time.time", lambda: INSTANT_EPOCH):  # when each was written
        return _chat_session(call, refused, game, ada, bo)


def _chat_session(call: Any, refused: Any, game: str, ada: str, bo: str) -> str:
    room = f"/games/{game}/chat/seats"
    kept = call(
        "postChatMessage",
        "POST",
        room,
        {"text": "Good luck, have fun!"},
        token=ada,
        headers={"Idempotency-Key": "hello-1"},
    )
    refused("postChatMessage", "POST", room, {"text": "x" * 501}, ada)
    wrong = call("postChatMessage", "POST", room, {"text": "sorry, wrong card"}, token=bo).get_json()["id"]
    call("deleteChatMessage", "DELETE", f"{room}/{wrong}", token=bo)
    call("listChatMessages", "GET", f"{room}?limit=20", token=ada)
    return str(kept.get_json()["id"])


def _webhook_asks(call: Any, service: Any, workers: _Workers, game: str, ada: str) -> str:
    """A webhook's test delivery, delivered (the receiver says 204), sent again, and the webhook
    enabled again; returns the delivery's id."""
    body = {"url": f"https://{WEBHOOK_HOST}/bluemoon", "events": ["game.ended"]}
    hook = call("createWebhook", "POST", f"/games/{game}/webhooks", body, token=ada).get_json()["id"]
    sent = call("testWebhook", "POST", f"/games/{game}/webhooks/{hook}/test", token=ada).get_json()["delivery"]
    workers.handed["webhook"].clear()
    service.dispatch()
    with mock.patch.object(deliveries, "post", lambda target, body, headers: 204):
        for claim in workers.handed["webhook"]:
            deliveries.attempt(service.client, service.outbox, claim.name, claim.payload)
    call("redeliverWebhookDelivery", "POST", f"/games/{game}/webhooks/{hook}/deliveries/{sent}/redeliver", token=ada)
    call("enableWebhook", "POST", f"/games/{game}/webhooks/{hook}/enable", token=ada)
    return str(sent)


def _accounts(call: Any, refused: Any, http: Any, found: dict[str, Any], game: str, ada: str) -> str:
    """Sign in by an email link, make and use a personal access token, keep a seat, sign out,
    sign another account out everywhere, and delete a third; returns the token's id."""
    links: list[str] = []
    own = {"Origin": "http://localhost"}  # the page's requests come from its own origin
    with mock.patch(
        "service.routes.account_routes.send_sign_in_link", lambda email, link, language: links.append(link)
    ):
        call("askEmailLink", "POST", "/auth/email-link", {"email": "ada@example.com"})
        refused("askEmailLink", "POST", "/auth/email-link", {"email": "not an address"})
        call("askEmailLink", "POST", "/auth/email-link", {"email": "bo@example.com"})
        call("askEmailLink", "POST", "/auth/email-link", {"email": "cy@example.com"})
    ada_link, bo_link, cy_link = (link.split("token=", 1)[1].split("&")[0] for link in links)
    page = http.get(f"/signin?token={ada_link}").get_data(as_text=True)
    found["signInPage"] = {"request": None, "response": "\n".join(page.splitlines()[:3]) + "\n…"}
    refused("useEmailLink", "POST", "/auth/email-link/use", {"token": "bml_used-or-unknown"})
    account = call("useEmailLink", "POST", "/auth/email-link/use", {"token": ada_link}).get_json()["account"]
    call("getProfile", "GET", "/me")
    call("getSession", "GET", "/auth/session")
    call("changeProfile", "PATCH", "/me", {"display_name": "Ada"}, headers=own)
    made = call("createToken", "POST", "/me/tokens", {"name": "my bot"}, headers=own).get_json()
    call(
        "claimSeats",
        "POST",
        "/me/seats",
        {"tokens": [ada, "a-token-of-no-seat"], "account": account},
        token=made["token"],
    )
    call("myGames", "GET", "/me/games?limit=10", token=made["token"])
    _alerts(call, refused, http, found, game, made["token"])
    call("listTokens", "GET", "/me/tokens")
    code = call("makeDeviceCode", "POST", "/me/device-code", headers=own).get_json()["code"]
    refused("useDeviceCode", "POST", "/auth/device-code", {"code": "ABCD-EFGH"})
    call("useDeviceCode", "POST", "/auth/device-code", {"code": code}, headers=own)
    call("revokeToken", "DELETE", f"/me/tokens/{made['id']}", headers=own)
    found["revokeToken"]["response"] = None
    call("signOut", "DELETE", "/auth/session", headers=own)
    found["signOut"]["response"] = None
    http.post("/signin", data={"token": bo_link})
    found["signInForm"] = {"request": None, "response": None}
    call("signOutEverywhere", "DELETE", "/auth/sessions", headers=own)
    found["signOutEverywhere"]["response"] = None
    http.post("/signin", data={"token": cy_link})
    call("becomeBotAccount", "POST", "/me/bot", headers=own)
    call("deleteAccount", "DELETE", "/me", headers=own)
    found["deleteAccount"]["response"] = None
    return str(made["id"])


def _oauth(call: Any, http: Any, found: dict[str, Any]) -> str:
    """Register an app, allow it on the consent page, exchange the code with its PKCE verifier,
    refresh, revoke, set and remove the app's webhook, list the apps allowed and revoke the app; returns the app's client id."""
    own = {"Origin": "http://localhost"}
    links: list[str] = []
    with mock.patch(
        "service.routes.account_routes.send_sign_in_link", lambda email, link, language: links.append(link)
    ):
        call("askEmailLink", "POST", "/auth/email-link", {"email": "dev@example.com"})
    http.post("/signin", data={"token": links[0].split("token=", 1)[1].split("&")[0]})
    redirect = "http://127.0.0.1/callback"
    app = call("registerApp", "POST", "/oauth/apps", {"name": "Moon Mobile", "redirect_uris": [redirect]}, headers=own)
    client = app.get_json()["client_id"]
    call("oauthMetadata", "GET", "/.well-known/oauth-authorization-server")
    verifier = "a-verifier-of-forty-three-characters-or-more-0123456789"
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = (
        f"/oauth/authorize?response_type=code&client_id={client}&redirect_uri=http://127.0.0.1:8765/callback"
        f"&scope=read+play&state=xyz&code_challenge={challenge}&code_challenge_method=S256"
    )
    page = http.get(query).get_data(as_text=True)
    found["oauthAuthorizePage"] = {"request": None, "response": "\n".join(page.splitlines()[:3]) + "\n…"}
    answer = http.post(query, data={"decision": "allow"}, headers=own)
    found["oauthAuthorize"] = {"request": None, "response": None}
    code = answer.headers["Location"].split("code=", 1)[1].split("&")[0]
    exchange = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": "http://127.0.0.1:8765/callback",
        "code_verifier": verifier,
        "client_id": client,
    }
    tokens = http.post("/oauth/token", data=exchange).get_json()
    found["oauthToken"] = {"request": None, "response": tokens}
    refreshed = http.post(
        "/oauth/token",
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": client},
    ).get_json()
    http.post("/oauth/revoke", data={"token": refreshed["refresh_token"], "client_id": client})
    found["oauthRevoke"] = {"request": None, "response": {}}
    hook = {"url": f"https://{WEBHOOK_HOST}/moon-push"}
    call("setAppWebhook", "PUT", f"/oauth/apps/{client}/webhook", hook, headers=own)
    call("listRegisteredApps", "GET", "/oauth/apps")
    call("listAllowedApps", "GET", "/me/apps")
    call("revokeApp", "DELETE", f"/me/apps/{client}", headers=own)
    found["revokeApp"]["response"] = None
    return str(client)


def _alerts(call: Any, refused: Any, http: Any, found: dict[str, Any], game: str, token: str) -> None:
    """Choose alert channels and quiet hours, keep a push subscription, mute and unmute a game,
    read the deliveries, and unsubscribe from the mails by the link without signing in."""
    service_key = ec.derive_private_key(SEED + 2, ec.SECP256R1())  # a made key is random: this one is fixed
    pem = service_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    os.environ["VAPID_PRIVATE_KEY"] = pem.decode()  # restored by record()'s patch of the environment
    changes = {
        "email": {"enabled": True, "delay_seconds": 900},
        "discord": {"url": f"https://{WEBHOOK_HOST}/api/webhooks/1/abc"},
        "quiet_hours": {"start": "22:30", "end": "07:00", "time_zone": "Europe/Berlin"},
    }
    call("changeAlertSettings", "PATCH", "/me/alerts", changes, token=token)
    refused(
        "changeAlertSettings",
        "PATCH",
        "/me/alerts",
        {"quiet_hours": {"start": "25:00", "end": "07:00", "time_zone": "Mars/Olympus"}},
        token,
    )
    browser = ec.derive_private_key(SEED + 1, ec.SECP256R1())
    point = browser.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    subscription = {
        "endpoint": f"https://{WEBHOOK_HOST}/push/v2/subscription-1",
        "keys": {"p256dh": _b64(point), "auth": _b64(bytes(range(16)))},
        "expirationTime": None,
    }
    made = call("subscribePush", "POST", "/me/push-subscriptions", subscription, token=token).get_json()
    refused(
        "subscribePush",
        "POST",
        "/me/push-subscriptions",
        {**subscription, "keys": {"p256dh": "AAAA", "auth": "AAAA"}},
        token,
    )
    call("muteGame", "PUT", f"/me/muted-games/{game}", token=token)
    found["muteGame"]["response"] = None
    call("getAlertSettings", "GET", "/me/alerts", token=token)
    call("unmuteGame", "DELETE", f"/me/muted-games/{game}", token=token)
    found["unmuteGame"]["response"] = None
    call("alertDeliveries", "GET", "/me/alerts/deliveries", token=token)
    call("unsubscribePush", "DELETE", f"/me/push-subscriptions/{made['id']}", token=token)
    found["unsubscribePush"]["response"] = None
    # the unsubscribe token travels only in mails: read it as the job that writes one does
    link_token = http.application.extensions["bluemoon"].alerts.unsubscribe_token(
        found["getProfile"]["response"]["account"]
    )
    page = http.get(f"/alerts/unsubscribe?token={link_token}").get_data(as_text=True)
    found["unsubscribePage"] = {"request": None, "response": "\n".join(page.splitlines()[:3]) + "\n…"}
    http.post(f"/alerts/unsubscribe?token={link_token}", data={"List-Unsubscribe": "One-Click"})
    found["unsubscribeOneClick"] = {"request": None, "response": None}
    found["subscription"] = made["id"]  # the path parameter's example, moved into "parameters"
    back = datetime.now(UTC) + timedelta(days=3)
    call("goAway", "PUT", "/me/vacation", {"until": back.isoformat(timespec="seconds")}, token=token)
    call("getVacation", "GET", "/me/vacation", token=token)
    call("comeBack", "DELETE", "/me/vacation", token=token)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _passkeys(call: Any, refused: Any, found: dict[str, Any]) -> str:
    """Sign up with a passkey (a software one), sign out, sign in with it; returns its id."""
    own = {"Origin": "http://localhost"}
    passkey = SoftPasskey("http://localhost")
    begun = call("beginPasskeyRegistration", "POST", "/auth/passkeys/registration", {"display_name": "Cy"}, headers=own)
    options = begun.get_json()["options"]
    finish = {"ceremony": begun.get_json()["ceremony"], "credential": passkey.create(options)}
    registered = call("registerPasskey", "POST", "/auth/passkeys", finish, headers=own).get_json()
    call("listPasskeys", "GET", "/me/passkeys")
    call("signOut", "DELETE", "/auth/session", headers=own)
    begun = call("beginPasskeySignIn", "POST", "/auth/passkeys/assertion", headers=own).get_json()
    answer = {"ceremony": begun["ceremony"], "credential": passkey.get(begun["options"])}
    call("signInWithPasskey", "POST", "/auth/passkeys/sign-in", answer, headers=own)
    call("removePasskey", "DELETE", f"/me/passkeys/{registered['passkey']['id']}", headers=own)
    found["removePasskey"]["response"] = None
    call("signOut", "DELETE", "/auth/session", headers=own)
    refused("signInWithPasskey", "POST", "/auth/passkeys/sign-in", answer)  # the same answer again
    return str(registered["passkey"]["id"])


def _lobby(
    call: Any, refused: Any, http: Any, components: Any, workers: _Workers, run_bots: Any
) -> tuple[str, str, str]:
    """Two people open and fill a rated game in the lobby, play it to its end (they only end
    their turns; the bot builds), see their ratings, and accept a rematch; another open game is
    cancelled. Returns the open game's id, the first person's player id and the second's token."""
    own = {"Origin": "http://localhost"}
    links: list[str] = []
    with mock.patch(
        "service.routes.account_routes.send_sign_in_link", lambda email, link, language: links.append(link)
    ):
        for email in ("dee@example.com", "eli@example.com"):
            http.post("/auth/email-link", json={"email": email})
    people = []
    for link in links:
        http.post("/auth/email-link/use", json={"token": link.split("token=", 1)[1].split("&")[0]})
        people.append(http.post("/me/tokens", json={"name": "lobby"}, headers=own).get_json()["token"])
        http.delete("/auth/session", headers=own)
    dee, eli = people
    opened = call(
        "openGame",
        "POST",
        "/open-games",
        {"players": 3, "bots": ["greedy"], "rated": True, "rating_range": {"min": -10, "max": 50}},
        token=dee,
    ).get_json()
    refused("openGame", "POST", "/open-games", {"players": 2, "rating_range": {"min": 10, "max": -10}}, dee)
    call("listOpenGames", "GET", "/open-games?players=3&limit=10")
    call("getOpenGame", "GET", f"/open-games/{opened['id']}")
    refused("joinOpenGame", "POST", f"/open-games/{opened['id']}/join", None, dee)
    started = call("joinOpenGame", "POST", f"/open-games/{opened['id']}/join", token=eli).get_json()
    other = http.post("/open-games", json={"players": 2}, headers={"Authorization": f"Bearer {dee}"}).get_json()
    call("cancelOpenGame", "DELETE", f"/open-games/{other['id']}", token=dee)
    game, service = started["game"], components.service
    by_seat = {0: dee, 1: eli}
    run_bots()
    while not service.state(game).finished:
        state = service.state(game)
        end = {"type": "end_turn", "expected_version": state.version}
        http.post(f"/games/{game}/commands", json=end, headers={"Authorization": f"Bearer {by_seat[state.turn.seat]}"})
        run_bots()
    _write_news(components, workers)  # as the workers would have, at once, before the rating
    for claim in workers.handed["rating"]:
        rate_now(service, components.ratings, claim.name, claim.payload)
    refused("acceptRematch", "POST", f"/games/{game}/rematch", None, "a-token-of-no-seat")
    call("acceptRematch", "POST", f"/games/{game}/rematch", token=dee)
    call("getRematch", "GET", f"/games/{game}/rematch")
    http.post(f"/games/{game}/rematch", headers={"Authorization": f"Bearer {eli}"})
    call("myRating", "GET", "/me/rating", token=dee)
    player = started["seats"][0]["player"]
    call("playerRating", "GET", f"/players/{player}/rating")
    del call("leaderboard", "GET", "/leaderboard?limit=10").get_json()["bots"][2:]  # (the recorded body: kept short)
    return str(opened["id"]), str(player), eli


def _moderation(
    call: Any, refused: Any, http: Any, found: dict[str, Any], components: Any, game: str
) -> tuple[str, str]:
    """A person reports a chat message of another's; a moderator (made by the operator's
    command's function) lists it, hides the message, suspends its author (who sees it) and lets
    them back, closes the report and reads the log. The clock stands still at INSTANT, so that the
    epoch-ms times and the ids made of them are the same on every recording. Returns the author's
    account and the report's id."""
    from application.chat.messages import ChatMessages
    from application.moderation.log import ModerationLog
    from application.moderation.moderators import Moderators

    own = {"Origin": "http://localhost"}
    links: list[str] = []
    instant = datetime.fromisoformat(INSTANT).replace(tzinfo=UTC).timestamp()
    with (
        mock.patch("service.routes.account_routes.send_sign_in_link", lambda email, link, language: links.append(link)),
        mock.patch("time.time", lambda: instant),
    ):
        for email in ("fay@example.com", "ivy@example.com", "gus@example.com"):
            asked = http.post("/auth/email-link", json={"email": email}, headers=own)
            assert asked.status_code == 202, asked.get_json()
        tokens: list[str] = []
        accounts: list[str] = []
        for link in links:
            token = link.split("token=", 1)[1].split("&")[0]
            used = http.post("/auth/email-link/use", json={"token": token}, headers=own)
            accounts.append(used.get_json()["account"])
            if len(tokens) < 2:
                tokens.append(http.post("/me/tokens", json={"name": "chat"}, headers=own).get_json()["token"])
                http.delete("/auth/session", headers=own)
        (fay, ivy), (author, _, moderator) = tokens, accounts  # gus stays signed in: the moderator's session
        chat = ChatMessages(components.store)
        said = [chat.add(game, "spectators", author, None, words) for words in ("good luck!", "you all cheat", "gg")]
        message = {"game": game, "room": "spectators", "message": said[1]["id"]}
        refused("fileReport", "POST", "/reports", message, ivy)  # no reason
        report = call("fileReport", "POST", "/reports", {**message, "reason": "abuse"}, token=ivy).get_json()["id"]
        refused("listReports", "GET", "/moderation/reports", None, ivy)  # a token, not the moderator's session
        Moderators(components.store, components.accounts, ModerationLog(components.store)).grant(moderator)
        call("listReports", "GET", "/moderation/reports?limit=10")
        call("hideMessage", "POST", "/moderation/hidden-messages", {**message, "reason": "abuse"}, headers=own)
        suspension = {"seconds": 86400, "reason": "abuse in a game's chat"}
        call("suspendAccount", "PUT", f"/moderation/suspensions/{author}", suspension, headers=own)
        call("mySuspension", "GET", "/me/suspension", token=fay)
        lifted = {"reason": "a day is enough"}
        call("liftSuspension", "POST", f"/moderation/suspensions/{author}/lift", lifted, headers=own)
        closed = {"outcome": "resolved", "note": "hidden, and a day's suspension"}
        call("closeReport", "POST", f"/moderation/reports/{report}/close", closed, headers=own)
        call("moderationLog", "GET", "/moderation/log?limit=10")
        page = http.get("/moderation").get_data(as_text=True)
        found["moderationPage"] = {"request": None, "response": "\n".join(page.splitlines()[:3]) + "\n…"}
    return author, report


def _people_signed_in(http: Any, purpose: str, *emails: str) -> list[str]:
    """A personal access token of each new person (signed in by an email link), named ``purpose``."""
    own = {"Origin": "http://localhost"}
    links: list[str] = []
    with mock.patch(
        "service.routes.account_routes.send_sign_in_link", lambda email, link, language: links.append(link)
    ):
        for email in emails:
            http.post("/auth/email-link", json={"email": email}, headers=own)
    people = []
    for link in links:
        http.post("/auth/email-link/use", json={"token": link.split("token=", 1)[1].split("&")[0]})
        people.append(http.post("/me/tokens", json={"name": purpose}, headers=own).get_json()["token"])
        http.delete("/auth/session", headers=own)
    return people


def _tournaments(call: Any, refused: Any, http: Any, found: dict[str, Any]) -> str:
    """Kim makes a Swiss of three rounds at tables of four; Lou joins, Kim enters a bot of the
    service, Lou leaves; a format the rules refuse and a second join are refused. Returns its id."""
    kim, lou = _people_signed_in(http, "tournaments", "kim@example.com", "lou@example.com")
    asked = {
        "name": "Autumn Swiss",
        "kind": "swiss",
        "table_size": 4,
        "rounds": 3,
        "starts": "2031-06-01T18:00:00Z",
        "turn_deadline": 86400,
        "round_seconds": 14 * 86400,
        "min_players": 4,
        "max_players": 40,
        "bot_levels": True,
    }
    made = call("createTournament", "POST", "/tournaments", asked, token=kim).get_json()
    refused("createTournament", "POST", "/tournaments", {**asked, "kind": "round_robin"}, kim)
    call("joinTournament", "POST", f"/tournaments/{made['id']}/join", token=lou)
    refused("joinTournament", "POST", f"/tournaments/{made['id']}/join", None, lou)
    call("addTournamentBot", "POST", f"/tournaments/{made['id']}/bots", {"level": "greedy"}, token=kim)
    call("getTournament", "GET", f"/tournaments/{made['id']}")
    call("listTournaments", "GET", "/tournaments?status=open")
    refused("withdrawFromTournament", "POST", f"/tournaments/{made['id']}/withdraw", None, kim)
    call("withdrawFromTournament", "POST", f"/tournaments/{made['id']}/withdraw", token=lou)
    call("joinTournament", "POST", f"/tournaments/{made['id']}/join", token=lou)
    call("leaveTournament", "POST", f"/tournaments/{made['id']}/leave", token=lou)
    text = http.get("/tournaments-page").get_data(as_text=True)
    found["tournamentsPage"] = {"request": None, "response": "\n".join(text.splitlines()[:3]) + "\n…"}
    return str(made["id"])


def _tournament_news(http: Any, found: dict[str, Any], components: Any, workers: _Workers) -> None:
    """Mia, Ned and Ola play a one-round Swiss at tables of two: one sits it out (a bye), the others'
    game is played out at the round's deadline, and its end is told; Mia's second tournament, which
    nobody else joins, is cancelled at its start. Each type of their news is its example."""
    people = _people_signed_in(http, "tournament news", "mia@example.com", "ned@example.com", "ola@example.com")
    auth = [{"Authorization": f"Bearer {token}"} for token in people]
    asked = {"name": "Quick Swiss", "kind": "swiss", "table_size": 2, "rounds": 1, "starts": "2031-06-01T18:00:00Z"}
    swiss = http.post("/tournaments", json={**asked, "round_seconds": 3600}, headers=auth[0]).get_json()["id"]
    lone = http.post("/tournaments", json={**asked, "name": "Lonely Cup"}, headers=auth[0]).get_json()["id"]
    for headers in auth:
        http.post(f"/tournaments/{swiss}/join", headers=headers)
    http.post(f"/tournaments/{lone}/join", headers=auth[0])
    for tournament, field in ((swiss, "starts"), (lone, "starts"), (swiss, "deadline")):  # as time would
        raw, doc = components.tournaments.document(tournament)
        if field == "starts":
            doc = {**doc, "starts": now_ms() - 1}
        else:
            doc = {**doc, "rounds": [{**doc["rounds"][0], "deadline": now_ms() - 1}]}
        components.tournaments.documents.swap(raw, doc)
        while components.service.dispatch() or workers.handed["tournament"]:  # its steps, as the workers run them
            for claim in workers.handed.pop("tournament", []):
                apply_now(components, claim.name, claim.payload)
    _write_news(components, workers)
    for headers in auth:
        for event in http.get("/me/events?after=0", headers=headers).get_json()["events"]:
            found["personEvents"].setdefault(event["type"], event)


def _challenges(call: Any, refused: Any, http: Any, found: dict[str, Any], components: Any, workers: _Workers) -> str:
    """Hal (``fay``) challenges Jon (``gus``), who sees it and accepts; then declines another, Gus cancels a third and
    a fourth expires; each type of their news is its example. Returns the first challenge's id."""
    fay, gus = _people_signed_in(
        http, "challenges", "hal@example.com", "jon@example.com"
    )  # (the moderators' are others)
    gus_id = http.get("/me", headers={"Authorization": f"Bearer {gus}"}).get_json()["account"]
    asked = {"account": gus_id, "edition": "cmon", "expansion": True, "clock": {"bank_seconds": 259200}}
    made = call("createChallenge", "POST", "/challenges", asked, token=fay).get_json()
    fay_id = made["challenger"]["account"]
    refused("createChallenge", "POST", "/challenges", {**asked, "account": fay_id}, fay)
    call("listMyChallenges", "GET", "/me/challenges", token=gus)
    call("getChallenge", "GET", f"/challenges/{made['id']}", token=gus)
    call("acceptChallenge", "POST", f"/challenges/{made['id']}/accept", token=gus)
    other = call("createChallenge", "POST", "/challenges", {"account": gus_id, "rated": False}, token=fay).get_json()
    refused("declineChallenge", "POST", f"/challenges/{other['id']}/decline", {"reason": "tired"}, gus)
    call("declineChallenge", "POST", f"/challenges/{other['id']}/decline", {"reason": "busy"}, token=gus)
    third = call("createChallenge", "POST", "/challenges", {"account": fay_id}, token=gus).get_json()
    call("cancelChallenge", "DELETE", f"/challenges/{third['id']}", token=gus)
    fourth = http.post("/challenges", json={"account": gus_id}, headers={"Authorization": f"Bearer {fay}"})
    components.challenges.expire(fourth.get_json()["id"], at=2**42)  # as its job would, 7 days on
    _write_news(components, workers)
    for token in (fay, gus):
        for event in http.get("/me/events?after=0", headers={"Authorization": f"Bearer {token}"}).get_json()["events"]:
            found["personEvents"].setdefault(event["type"], event)
    return str(made["id"])


def _searches(call: Any, refused: Any, http: Any, found: dict[str, Any], player: str) -> None:
    """The lobby's finished game found among its first player's games, and exported."""
    call("listPlayerGames", "GET", f"/players/{player}/games?players=3&result=lost&ended=played&limit=10")
    refused("listPlayerGames", "GET", f"/players/{player}/games?players=5", None)
    exported = http.get(f"/players/{player}/games/export?players=3&limit=1").get_data(as_text=True)
    found["exportPlayerGames"] = {"request": None, "response": exported[:200] + "…"}  # one game's log, cut short


def _write_news(components: Any, workers: _Workers) -> None:
    """Run the person-stream jobs handed on so far."""
    for claim in workers.handed.pop("person_stream", []):
        write_now(components, claim.name, claim.payload)


def _news(
    call: Any, refused: Any, http: Any, found: dict[str, Any], components: Any, workers: _Workers, token: str
) -> None:
    """The person-stream jobs run; the person who joined the lobby's game reads their news from the
    rematch's offer (offered, then started), by long poll and by SSE, and is refused an id their
    stream never sent. Each type's first event is its example."""
    _write_news(components, workers)
    auth = {"Authorization": f"Bearer {token}"}
    every: list[dict[str, Any]] = []
    while page := http.get(f"/me/events?after={every[-1]['id'] if every else 0}", headers=auth).get_json()["events"]:
        every += page
    examples: dict[str, dict[str, Any]] = {}
    for event in every:
        examples.setdefault(event["type"], event)
    found["personEvents"] = examples
    offered = examples["rematch.offered"]["id"]  # and the rematch's game.started after it
    call("listMyEvents", "GET", f"/me/events?after={offered - 1}&wait=0", token=token)
    refused("listMyEvents", "GET", f"/me/events?after={every[-1]['id'] + 1}", None, token)
    stream = http.get(f"/me/stream?after={offered - 1}", headers=auth)
    found["streamMyEvents"] = {"request": None, "response": stream.get_data(as_text=True)}


def _people(call: Any, refused: Any, http: Any, game: str, player: str) -> str:
    """Gus signs in and starts a game against a bot; Fay follows him and reads her friends list
    (his game, his turn), mutes and blocks him and takes both back, chooses what she allows,
    keeps notes on a player and a game, and reads a profile. Returns Gus's account."""
    own = {"Origin": "http://localhost"}
    links: list[str] = []
    http.delete("/auth/session", headers=own)  # whoever the recording left signed in
    with mock.patch(
        "service.routes.account_routes.send_sign_in_link", lambda email, link, language: links.append(link)
    ):
        for email in ("gus@example.com", "fay@example.com"):
            http.post("/auth/email-link", json={"email": email}, headers=own)
    gus_link, fay_link = (link.split("token=", 1)[1].split("&")[0] for link in links)
    gus = http.post("/auth/email-link/use", json={"token": gus_link}).get_json()["account"]
    http.patch("/me", json={"display_name": "Gus"}, headers=own)
    seats = [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]
    http.post("/games", json={"seats": seats, "setup": {"first_player": 0}}, headers=own)
    http.delete("/auth/session", headers=own)
    http.post("/auth/email-link/use", json={"token": fay_link})
    call("followPerson", "PUT", f"/me/follows/{gus}", headers=own)
    call("listFollows", "GET", "/me/follows?limit=10")
    refused("followPerson", "PUT", f"/me/follows/{http.get('/me').get_json()['account']}", None, headers=own)
    call("mutePerson", "PUT", f"/me/mutes/{gus}", headers=own)
    call("listMutes", "GET", "/me/mutes")
    call("unmutePerson", "DELETE", f"/me/mutes/{gus}", headers=own)
    call("blockPerson", "PUT", f"/me/blocks/{gus}", headers=own)
    call("listBlocks", "GET", "/me/blocks")
    call("unblockPerson", "DELETE", f"/me/blocks/{gus}", headers=own)
    call("unfollowPerson", "DELETE", f"/me/follows/{gus}", headers=own)
    call("getPrivacy", "GET", "/me/privacy")
    call("changePrivacy", "PATCH", "/me/privacy", {"challenges": "followed", "friends_public": False}, headers=own)
    note = {"text": "Plays the Kosmos edition well.\nLikes long games."}
    call("putPlayerNote", "PUT", f"/me/notes/players/{player}", note, headers=own)
    refused("putPlayerNote", "PUT", f"/me/notes/players/{player}", {"text": "evil\u202egnp.exe"}, headers=own)
    call("getPlayerNote", "GET", f"/me/notes/players/{player}")
    call("deletePlayerNote", "DELETE", f"/me/notes/players/{player}", headers=own)
    call("putGameNote", "PUT", f"/me/notes/games/{game}", {"text": "Watch the blue dragon."}, headers=own)
    call("getGameNote", "GET", f"/me/notes/games/{game}")
    call("deleteGameNote", "DELETE", f"/me/notes/games/{game}", headers=own)
    call("getPlayer", "GET", f"/players/{player}")
    http.delete("/auth/session", headers=own)
    return str(gus)
