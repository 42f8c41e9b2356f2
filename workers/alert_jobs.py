"""The RQ job that tells a person it is their turn, on each channel they chose (or that someone
challenges them to a game: application/challenges/, sent the same way while the challenge waits).

The alert is an outbox entry written by the append that started the turn (application/alerts/entries.py);
the dispatcher leases it to this job, which removes it only when every channel has it or gave up.
Nothing goes out for a turn that is already over, a muted game, or a seat the person is watching
(an open stream of it); during the person's quiet hours the entry waits until they end. Each
channel that accepted the alert is marked under the alert's id, so a retried job (a channel
failed, a worker was killed) sends only what is missing; a Discord or Slack channel is also
marked per game and turn, so a channel several people share gets each message once. Failures
are retried with the webhooks' back-off, and every outcome is logged for the person.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rq import get_current_job

from application.accounts.sign_in_mail import delivery
from application.alerts.channel_settings import AlertSettings, quiet_until
from application.alerts.mail_batches import MailBatches
from application.alerts.messages import CHALLENGE, challenge_item, discord, item_for, mail, push, slack
from application.alerts.vapid import vapid_key
from application.games.game_service import digest
from application.outbound.limits import DeliveryBudget
from application.settings import PUBLIC_URL, VAPID_CONTACT
from application.telemetry.metrics import DELIVERIES
from application.wiring import Components, build, connect, store_client_for_job, store_url
from events import keys
from events.outbox import now_ms
from events.redis_store import text

from . import alert_channels
from .alert_channels import ChannelFailed
from .webhook_delivery import BACKOFF

log = logging.getLogger("bluemoon.alerts")

SENT_SECONDS = 7 * 24 * 3600  #: how long "this channel has it" marks are kept
MOVES_READ = 300  #: the latest events read to tell the opponents' moves
TURN_PLAYED = "the turn was already played"  #: why an alert was skipped, in the delivery log
CHALLENGE_ANSWERED = "the challenge was answered or expired"  #: why a challenge's alert was skipped


def send(name: str, payload: str) -> str:
    """The RQ job: one attempt at the alert ``name`` (see the module doc)."""
    job = get_current_job()
    client = store_client_for_job(job.connection) if job is not None else connect(store_url())
    return attempt(build(client=client), name, payload)


def watching(client: Any, game: str, seat: int) -> bool:
    """Whether the seat has an open stream of the game now (service/live.py keeps the marks)."""
    open_streams = client.zrangebyscore(keys.watchers(game), now_ms(), "+inf")
    return any(text(member).startswith(f"{seat}:") for member in open_streams)


def origin() -> str:
    """Where the links in alerts point: PUBLIC_URL, else the local default."""
    return (PUBLIC_URL.read() or "http://localhost:8000").rstrip("/")


def attempt(c: Components, name: str, payload: str) -> str:
    """One attempt at the alert: skipped, held for quiet hours, or sent on each channel not yet
    marked; the entry is renewed for what must be tried again, else finished."""
    alert = json.loads(payload)
    if alert["kind"] == CHALLENGE:
        return _challenge(c, name, payload, alert)
    account, game, seat = alert["account"], alert["game"], alert["seat"]
    alerts, client, service = c.alerts, c.client, c.service
    tries = int(client.hget(keys.outbox_of(name)[2], name) or 1)
    state = service.state(game)
    game_settings = service.settings(game)
    turn = state.turn
    settings = alerts.get(account)

    def skip(reason: str) -> str:
        c.service.outbox.finish(name, payload)
        _record(alerts, account, _entry(alert, "all", tries, "skipped", reason))
        return "skipped"

    if state.finished or turn is None or (turn.seat, turn.number) != (seat, alert["turn"]):
        return skip(TURN_PLAYED)
    if game_settings["accounts"].get(seat) != account or not c.accounts.exists(account):
        return skip("the seat is no longer in this account")
    if alert["kind"] == "turn.deadline_near" and not settings["deadline_reminders"]:
        return skip("deadline reminders are off")
    if alerts.is_muted(account, game):
        return skip("the game is muted")
    if watching(client, game, seat):
        return skip("you are watching this game")
    held = quiet_until(settings, datetime.now(UTC))
    if held is not None:
        service.outbox.renew(name, payload, due_ms=int(held.timestamp() * 1000))
        return "held"
    if DeliveryBudget(client).defer(service.outbox, name, payload, game, account) is not None:
        _record(alerts, account, _entry(alert, "all", tries, "deferred", "over the delivery budget (a minute's)"))
        return "deferred"
    stored = c.store.read(game, after=max(0, state.version - MOVES_READ))
    item = item_for(alert, state, stored, game_settings["seats"], origin(), settings["language"] or "en")
    return _deliver(c, name, payload, alert, item, settings, tries)


def _challenge(c: Components, name: str, payload: str, alert: dict[str, Any]) -> str:
    """A challenge's alert: sent as a turn's is (quiet hours, the budget, each channel once)
    while the challenge waits for its answer; skipped once it was answered or expired."""
    account, alerts = alert["account"], c.alerts
    tries = int(c.client.hget(keys.outbox_of(name)[2], name) or 1)
    settings = alerts.get(account)

    def skip(reason: str) -> str:
        c.service.outbox.finish(name, payload)
        alerts.record(account, _entry(alert, "all", tries, "skipped", reason))
        return "skipped"

    if not c.accounts.exists(account):
        return skip("the account is gone")
    if not c.challenges.waiting(alert["game"]):
        return skip(CHALLENGE_ANSWERED)
    held = quiet_until(settings, datetime.now(UTC))
    if held is not None:
        c.service.outbox.renew(name, payload, due_ms=int(held.timestamp() * 1000))
        return "held"
    if DeliveryBudget(c.client).defer(c.service.outbox, name, payload, alert["game"], account) is not None:
        alerts.record(account, _entry(alert, "all", tries, "deferred", "over the delivery budget (a minute's)"))
        return "deferred"
    player = c.accounts.display_name(account)
    item = challenge_item(alert, player, origin(), settings["language"] or "en")
    return _deliver(c, name, payload, alert, item, settings, tries)


def _deliver(
    c: Components,
    name: str,
    payload: str,
    alert: dict[str, Any],
    item: dict[str, Any],
    settings: dict[str, Any],
    tries: int,
) -> str:
    """Send ``item`` on each of the person's channels not yet marked; renew the entry for what
    must be tried again, else finish it."""
    account, alerts, client, service = alert["account"], c.alerts, c.client, c.service
    later: list[int] = []  # when to try again: a failed channel's back-off, a mail batch's due time
    for channel in _chosen(settings, alerts, account):
        mark = keys.alert_sent(account, f"{alert['id']}:{channel}")
        if client.exists(mark):
            continue
        started = time.monotonic()
        if not service.outbox.renew(name, payload):
            return "taken"  # another job finished or replaced the entry while this one sent
        try:
            result = _send(
                c, alerts, account, channel, settings, item, alert, lambda: service.outbox.renew(name, payload)
            )
        except ChannelFailed as failed:
            last = tries > len(BACKOFF)
            _record(
                alerts, account, _entry(alert, channel, tries, "failed" if last else "retrying", failed.error, started)
            )
            if not last:
                later.append(now_ms() + int(BACKOFF[tries - 1] * 1000))
            continue
        if isinstance(result, int):  # the mail batch is not due yet
            later.append(result)
            continue
        client.set(mark, 1, ex=SENT_SECONDS)
        delivered = result == "sent"
        _record(
            alerts,
            account,
            _entry(
                alert, channel, tries, "delivered" if delivered else "skipped", None if delivered else result, started
            ),
        )
    if later:
        service.outbox.renew(name, payload, due_ms=min(later))
        return "waiting"
    service.outbox.finish(name, payload)
    return "done"


#: how metrics name an alert's channels (``all``: the alert as a whole, skipped or deferred)
CHANNELS = {"email": "mail", "push": "push", "discord": "discord", "slack": "slack", "all": "alert"}


def _record(alerts: AlertSettings, account: str, entry: dict[str, Any]) -> None:
    """Log an attempt for the person's alerts panel, and count it (application/telemetry/metrics.py)."""
    alerts.record(account, entry)
    DELIVERIES.labels(CHANNELS.get(entry["channel"], entry["channel"]), entry["outcome"]).inc()


def _chosen(settings: dict[str, Any], alerts: AlertSettings, account: str) -> list[str]:
    chosen = []
    if settings["email"]["enabled"]:
        chosen.append("email")
    if settings["push"]["enabled"] and alerts.subscriptions(account):
        chosen.append("push")
    chosen += [channel for channel in ("discord", "slack") if settings.get(channel)]
    return chosen


def _send(
    c: Components,
    alerts: AlertSettings,
    account: str,
    channel: str,
    settings: dict[str, Any],
    item: dict[str, Any],
    alert: dict[str, Any],
    hold: Callable[[], object],
) -> str | int:
    """Send on one channel: "sent", another outcome to log, or when to look again (a mail batch).
    ``hold`` renews the job's lease on the entry: push calls it before each subscription."""
    if channel == "email":
        return _mail(c, alerts, account, settings, item, alert["id"])
    if channel == "push":
        return _push(c, alerts, account, item, alert["id"], hold)
    url = settings[channel]["url"]
    shared = keys.channel_sent(digest(url), f"{alert['game']}:{alert['turn']}:{alert['kind']}")
    if c.client.exists(shared):
        return "already posted to this channel"
    alert_channels.post_json(f"{channel}.url", url, discord(item) if channel == "discord" else slack(item))
    c.client.set(shared, 1, ex=SENT_SECONDS)
    return "sent"


def _mail(
    c: Components, alerts: AlertSettings, account: str, settings: dict[str, Any], item: dict[str, Any], alert_id: str
) -> str | int:
    """Join the account's mail batch; send it when it is due (module doc of application/alerts/mail_batches.py)."""
    email = c.accounts.profile(account)["email"]
    if not email:
        return "no email address in this account"
    if delivery() != "email":
        return "this service sends no email (no SMTP_URL)"
    batches = MailBatches(c.client)
    delay_ms = int(settings["email"]["delay_seconds"]) * 1000
    batches.join(account, alert_id, item, now_ms() + delay_ms)
    batch, due = batches.take(account, now_ms())
    if batch is None and due:
        return due  # not due yet, or another job is sending it
    if batch is not None:
        _send_batch(c, alerts, account, settings, email, batch)
    return batches.outcome(account, alert_id)  # "sent" only if a mail went out with this alert's game


def _send_batch(
    c: Components, alerts: AlertSettings, account: str, settings: dict[str, Any], email: str, batch: dict[str, Any]
) -> None:
    """Mail the batch's games that are still the person's turn (none: no mail), then clear the
    batch, marking each alert with what became of it."""
    items = [i for i in batch["items"] if _still_current(c, i)]
    if items:
        token = alerts.unsubscribe_token(account)
        unsubscribe = f"{origin()}/alerts/unsubscribe?token={token}&lang={settings['language'] or 'en'}"
        subject, text_body, html_body = mail(items, unsubscribe)
        alert_channels.mail(email, subject, text_body, html_body, batch["id"], unsubscribe)
    outcomes = {
        i["alert"]: "sent" if i in items else CHALLENGE_ANSWERED if i["kind"] == CHALLENGE else TURN_PLAYED
        for i in batch["items"]
        if "alert" in i
    }
    MailBatches(c.client).sent(account, batch["id"], outcomes)


def _still_current(c: Components, item: dict[str, Any]) -> bool:
    """Whether the item is still news: its challenge still waits, or it is still the seat's turn."""
    if item["kind"] == CHALLENGE:
        return c.challenges.waiting(item["game"])
    state = c.service.state(item["game"])
    return (
        not state.finished
        and state.turn is not None
        and (state.turn.seat, state.turn.number) == (item["seat"], item["turn"])
    )


def _push(
    c: Components, alerts: AlertSettings, account: str, item: dict[str, Any], alert: str, hold: Callable[[], object]
) -> str:
    """Every subscription of the account, each once; one its push service says is gone is dropped.
    Each may take a push service's whole timeout: the lease is renewed before each. "sent" only
    if a subscription took the message (now or in an earlier attempt)."""
    key = vapid_key(c.client)
    contact = VAPID_CONTACT.read()
    failures, reached = [], 0
    for subscription in alerts.subscriptions(account):
        mark = keys.alert_sent(account, f"{alert}:push:{subscription['id']}")
        if c.client.exists(mark):
            reached += 1
            continue
        hold()
        try:
            alert_channels.push(subscription, push(item), key, contact)
            c.client.set(mark, 1, ex=SENT_SECONDS)
            reached += 1
        except ChannelFailed as failed:
            if failed.gone:
                alerts.unsubscribe_push(account, subscription["id"])
                log.info("push subscription %s of %s dropped: %s", subscription["id"], account, failed.error)
            else:
                failures.append(failed.error)
    if failures:
        raise ChannelFailed("; ".join(failures))
    return "sent" if reached else "no push subscription took it (those gone were dropped)"


def _entry(
    alert: dict[str, Any], channel: str, attempt_no: int, outcome: str, detail: str | None, started: float | None = None
) -> dict[str, Any]:
    return {
        "at": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "alert": alert["id"],
        "kind": alert["kind"],
        "game": alert["game"],
        "channel": channel,
        "attempt": attempt_no,
        "outcome": outcome,
        "detail": detail,
        "ms": None if started is None else round((time.monotonic() - started) * 1000, 1),
    }
