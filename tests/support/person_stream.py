"""A person's stream as the tests follow it: the person-stream jobs run in this process as soon
as they are handed on (as a turn worker would run them), and a person's news read back."""

from __future__ import annotations

from application.background.handoff import CallbackHandoff
from tests.support.lobby import auth
from tests.support.scenarios import scenario_body
from workers.person_stream_jobs import write_now


def write_news_at_once(api) -> list:
    """Run each person-stream job the moment it is handed on; returns the list of claims run."""
    components = api.app.extensions["bluemoon"]
    handoff = components.service.dispatcher.handoff
    assert isinstance(handoff, CallbackHandoff)
    ran: list = []

    def run(claim) -> None:
        ran.append(claim)
        write_now(components, claim.name, claim.payload)

    handoff.on["person_stream"] = run
    return ran


def news(api, token: str, after: int = 0) -> list[dict]:
    """Every event of the token's person's stream after ``after`` (the long poll, page by page)."""
    found: list[dict] = []
    while True:
        answer = api.get(f"/me/events?after={found[-1]['id'] if found else after}", headers=auth(token))
        assert answer.status_code == 200, answer.json
        if not answer.json["events"]:
            return found
        found += answer.json["events"]


def kinds(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


#: Seat 0 (the person) holds 5 of the 6 obelisk spaces a game of two needs and can pay the sixth;
#: the greedy bot in seat 1, without a crystal, begins.
LAST_OFFERING = scenario_body(
    figures=["courtyard", "courtyard"], obelisk=[0, 0, 0, 0, 0], crystals=[20, 0], dragons=[], markers=[], turn=1
) | {"seats": [{"kind": "human"}, {"kind": "bot", "level": "greedy"}]}
