"""The play-by-web page in a real browser (Debian's chromium driven by Playwright) against the
real service: the lobby, a whole game against a greedy bot played by clicking, two humans
seeing each other's moves live, a refused command shown, the phone layout, no console error."""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.e2e.conftest import call, wait_until
from tests.support.browser import (
    GAME_STREAM,
    SHOTS,
    Traffic,
    browser,  # noqa: F401 (the fixture)
    page_with_errors,
    scenario_over_http,
    settled,
    two_humans_over_http,
    walk,
)

pytestmark = pytest.mark.slow  # each test drives a real Chromium against the whole service

#: Where the test clicks a tile to see its choice: its top left corner, away from its spaces. On
#: the player's own tile a click on a payable space starts paying it instead (the Main Hall's
#: choice came up empty in 2 of 13 CI runs, always there; the cause is not proven).
ON_THE_TILE = {"x": 12, "y": 12}


def _status(page) -> str:
    return page.text_content("#status") or ""


def _one_move(page, rnd: random.Random) -> bool:
    """Play as a person would: pay a space with the builder, offer, click a tile to walk, or
    end the turn. True when something was built or offered."""
    kinds = page.eval_on_selector_all("#actions button", "bs => bs.map(b => b.dataset.type)")
    if "pay" in kinds:
        page.locator("#actions button[data-type=pay]").first.click(timeout=5_000)
        page.locator("#builder button[data-type=suggest]").first.click(timeout=5_000)  # ticks its cards
        page.locator("#builder button[data-type=contribute]").first.click(timeout=5_000)
        return True
    if "offer" in kinds:
        page.locator("#actions button[data-type=offer]").first.click(timeout=5_000)
        return True
    walks = page.locator("#board g.target.walk")
    if walks.count() and rnd.random() < 0.6:
        walks.nth(rnd.randrange(walks.count())).click(timeout=5_000)
        if page.locator("#choices button").count():  # more than a step can reach it: take the first way
            page.locator("#choices button").first.click(timeout=5_000)
        return False
    page.locator("#actions button[data-type=end_turn]").click(timeout=5_000)
    return False


def test_browser_a_whole_game_against_a_greedy_bot_is_played_from_the_lobby_to_the_end(start_service, browser):  # noqa: F811
    # the test clicks far faster than a person (several commands a second): no rate limits
    server = start_service(RATE_LIMIT="0")
    errors: list[str] = []
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/")
    page.click("#create button[type=submit]")
    page.click("text=Play seat 0")
    page.wait_for_selector("#status:has-text('seat')")
    rnd, clicks, built = random.Random(5), 0, 0
    while "Finished" not in _status(page):
        assert clicks < 2500, "the game did not end"
        wait_until(
            page,
            "document.querySelector('#status').textContent.includes('Finished') ||"
            " document.querySelector('#actions button[data-type=end_turn]:not([disabled])') !== null",
            timeout=30_000,
        )
        if "Finished" in _status(page):
            break
        try:  # the live feed may redraw the page under the pointer: then look again
            built += _one_move(page, rnd)
        except PlaywrightError:
            continue
        clicks += 1
        wait_until(page, "!document.querySelector('#actions button[disabled]')", timeout=30_000)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "finished.png"))
    assert "winners" in _status(page) and clicks > 10 and built > 3, (clicks, built)
    assert page.query_selector("#board svg") is not None and len(page.query_selector_all("#log li")) > 20
    # the replay: the slider steps through every version, by keyboard too; the audit is shown
    page.wait_for_selector("#audit li:has-text('Verified')")
    page.wait_for_selector("#fairness li:has-text('Fair: every shuffle agrees')")
    fairness = page.text_content("#fairness")
    assert fairness.count("✔") == 7 and "✘" not in fairness, fairness
    final = page.text_content("#board")
    page.focus("#version")
    page.keyboard.press("Home")
    page.wait_for_selector("#shown:has-text('version 1 of')")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#shown:has-text('version 2 of')")
    assert page.text_content("#board") != final  # the city before anything was built
    page.click("#live")
    assert page.locator("#hand .card").count() > 0 and page.locator("input[name=discard]").count() == 0
    # a server that lies: two cards of the dealt deck swapped in the log it serves
    liar = page_with_errors(browser, errors)
    _lie(liar, _swap_deck)
    liar.goto(page.url)
    liar.wait_for_selector("#fairness li:has-text('UNFAIR')")
    assert _failed(liar) == {"deck", "deal"}, liar.text_content("#fairness")
    assert errors == []


def _lie(page, tamper) -> None:
    """Serve the page a tampered copy of the game's published log."""

    def serve(route) -> None:
        real = route.fetch()
        route.fulfill(response=real, json=tamper(real.json()))

    page.route("**/games/*/log", serve)


def _swap_deck(log: dict) -> dict:
    order = next(e for e in log["events"] if e["type"] == "DeckShuffled")["data"]["order"]
    order[0], order[-1] = order[-1], order[0]
    return log


def _failed(page) -> set[str]:
    """The names of the fairness checks the page shows as failed."""
    items = page.eval_on_selector_all("#fairness li", "ls => ls.map(l => l.textContent)")
    return {item[2:].split(":")[0] for item in items if item.startswith("✘")}


def _stored(page) -> list[dict]:
    """The seats this browser keeps (localStorage), as the lobby and the play page share them."""
    return page.evaluate("JSON.parse(localStorage.getItem('bluemoon.seats') || '[]')")


def _create_in_lobby(page) -> tuple[str, str]:
    """Create a game of me and an invited seat from the lobby: (game, invite link)."""
    page.select_option("#seats div:nth-child(3) select[name=kind]", "open")
    page.check("input[name=expansion]")
    page.click("#create button[type=submit]")
    link = page.input_value("#created input[aria-label^='invite link']")
    return link.split("/play/")[1].split("#")[0], link


def test_browser_the_lobby_invites_a_friend_and_lists_my_games_with_my_turn_first(server, browser):  # noqa: F811
    """Two games are created in one browser, each with an invite link; a friend joins one from
    the link in another browser. One game is made to wait for the friend and the other for me:
    the lobby lists the one where it is my turn first. The tokens live only in localStorage."""
    errors: list[str] = []
    me, friend = page_with_errors(browser, errors), page_with_errors(browser, errors)
    me.goto(f"{server}/")
    waiting, _ = _create_in_lobby(me)
    me.goto(f"{server}/")
    mine, invite = _create_in_lobby(me)  # created last, listed first
    friend.goto(invite)
    friend.wait_for_selector("#status:has-text('You are seat 1')")
    assert "invite=" not in friend.url and "#token=" in friend.url  # the invite is spent, the token kept
    tokens = {s["game"]: s["token"] for s in _stored(me)}
    assert set(tokens) == {waiting, mine} and [s["game"] for s in _stored(friend)] == [mine]
    for game, token, seat in ((waiting, tokens[waiting], 0), (mine, _stored(friend)[0]["token"], 1)):
        _, view = call(server, "GET", f"/games/{game}")
        assert view["options"]["expansion"] is True
        if view["turn"]["seat"] == seat:  # pass the turn on, so that it waits for the other seat
            end = {"type": "end_turn", "expected_version": view["version"]}
            assert call(server, "POST", f"/games/{game}/commands", end, token=token)[0] == 200
    me.goto(f"{server}/")
    me.wait_for_selector("#games li a")
    listed = me.eval_on_selector_all("#games li", "ls => ls.map(l => [l.querySelector('a').href, l.textContent])")
    assert len(listed) == 2 and mine in listed[0][0] and "your turn" in listed[0][1], listed
    assert waiting in listed[1][0] and "seat 1 to play" in listed[1][1], listed
    # named by their players and options, not by ids
    assert all(game[:8] not in text and "+ expansion" in text for (_, text), game in zip(listed, (mine, waiting)))
    assert "open seat" in listed[1][1] and "open seat" not in listed[0][1], listed
    assert errors == []


def test_browser_a_name_with_markup_is_shown_as_text_and_runs_nothing(server, browser):  # noqa: F811
    """A display name is any Unicode text, so a player may join as a piece of HTML: the other
    seat's page shows it as text, and its script (which could read the tokens) never runs."""
    errors: list[str] = []
    status, created = call(server, "POST", "/games", {"seats": [{"kind": "human"}, {"kind": "open"}]})
    assert status == 201
    name = '<img src=x onerror="window.pwned=1">'
    invite = created["seats"][1]["invite"]
    assert call(server, "POST", f"/games/{created['game']}/seats/1/join", {"invite": invite, "name": name})[0] == 201
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/play/{created['game']}#token={created['seats'][0]['token']}")
    page.wait_for_selector("#table td")
    assert name in page.text_content("#table") and page.query_selector("#table img") is None
    assert page.evaluate("window.pwned") is None
    assert errors == []


def test_browser_two_humans_see_each_others_moves_and_take_backs_live(server, browser):  # noqa: F811
    """A step, then the page's take-back (P17): the watcher sees both, the figure is back. The
    mover's page plays them over its play socket, not with a request each; the watcher, who does
    not move, opens none."""
    errors: list[str] = []
    game, tokens, first = two_humans_over_http(server)
    mover = page_with_errors(browser, errors)
    traffic = Traffic(mover)
    watched = Traffic(watcher := page_with_errors(browser, errors))
    watcher = page_with_errors(browser, errors)
    mover.goto(f"{server}/play/{game}#token={tokens[first]}")
    watcher.goto(f"{server}/play/{game}#token={tokens[1 - first]}")
    watcher.wait_for_selector("#log li")
    mover.wait_for_selector("#board g.target.step")
    settled(mover, server, game)
    before = len(watcher.query_selector_all("#log li"))
    walk(mover)
    wait_until(watcher, f"document.querySelectorAll('#log li').length > {before}", timeout=30_000)
    assert "steps to" in watcher.text_content("#log li:last-child")
    # the log is a live region: a screen reader says each move as it is added
    assert watcher.get_attribute("#log", "aria-live") == "polite"
    mover.click("#actions button[data-type=take_back]")
    wait_until(watcher, f"document.querySelectorAll('#log li').length > {before + 1}", timeout=30_000)
    assert "takes back" in watcher.text_content("#log li:last-child")
    _, view = call(server, "GET", f"/games/{game}")
    assert view["players"][first]["position"] == "courtyard" and view["turn"]["steps"] == 2
    mover.wait_for_selector("#actions button[data-type=take_back]", state="detached")  # nothing left to take back
    mover.wait_for_selector("#board g.target.step")  # the turn goes on from its start
    assert traffic.commands() == ["move", "take_back"] and traffic.posted == [], (traffic.sent, traffic.posted)
    keys = [frame["idempotency_key"] for frame in traffic.sent]
    assert len(set(keys)) == 2 and all(frame["command"]["expected_version"] for frame in traffic.sent)
    answers = traffic.heard_answers(mover, "result", len(traffic.sent))
    assert [answer["id"] for answer in answers] == [frame["id"] for frame in traffic.sent]
    assert watched.sent == watched.heard == [] and errors == []


@pytest.mark.own_store  # what it tests is the page's transport, not the store
def test_browser_a_move_whose_socket_drops_is_sent_again_over_rest_with_its_key_and_played_once(server, browser):  # noqa: F811
    """The page's first play socket carries its step to the server but drops before the answer
    comes back; the page sends the step again over REST with the same Idempotency-Key (the
    service answers with the first outcome), and, its next socket refused, takes the step back
    over REST. The game holds one step, its key the one the socket carried."""
    errors: list[str] = []
    game, tokens, first = two_humans_over_http(server)
    page = page_with_errors(browser, errors)
    traffic = Traffic(page)
    relayed: list[dict] = []
    opened: list[str] = []

    def dropping(route) -> None:
        opened.append(route.url)
        if relayed:  # the socket has dropped once: refuse every other
            route.close(code=1013, reason="refused by the test")
            return
        to_server = route.connect_to_server()
        route.on_message(lambda text: (relayed.append(json.loads(text)), to_server.send(text)))
        to_server.on_message(lambda text: route.close(code=1011) if '"result"' in text else route.send(text))

    page.route_web_socket(re.compile(r"/socket$"), dropping)
    page.goto(f"{server}/play/{game}#token={tokens[first]}")
    page.wait_for_selector("#board g.target.step")
    settled(page, server, game)
    walk(page)
    page.wait_for_selector("#actions button[data-type=take_back]")
    page.wait_for_timeout(1200)  # past the page's first backoff: it tries a socket again
    page.click("#actions button[data-type=take_back]")
    page.wait_for_selector("#actions button[data-type=take_back]", state="detached")
    [step] = relayed
    assert step["command"]["type"] == "move" and len(opened) == 2, (relayed, opened)
    assert [(p["key"], p["body"]["type"]) for p in traffic.posted[:1]] == [(step["idempotency_key"], "move")]
    assert [p["body"]["type"] for p in traffic.posted] == ["move", "take_back"], traffic.posted
    _, log = call(server, "GET", f"/games/{game}/events", token=tokens[first])
    moved = [e for e in log["events"] if e["type"] == "FigureMoved"]
    digest = hashlib.sha256(step["idempotency_key"].encode()).hexdigest()[:16]
    assert len(moved) == 1 and moved[0]["meta"]["key_digest"] == digest, moved
    assert errors == [], errors


@pytest.mark.own_store  # what it tests is the page's transport, not the store
def test_browser_a_page_whose_first_reads_get_no_answer_reads_again_and_comes_up_whole(server, browser):  # noqa: F811
    """A phone's connection drops as the page opens: its first read of the catalogue and of the
    game get no answer at all (aborted, as a lost network aborts them). The page reads each again
    a second later and comes up whole: the board with the seat's moves, the chat to write in.
    (Before, the first lost read threw out of the page's start: a page with nothing on it.)"""
    errors: list[str] = []
    game, tokens, first = two_humans_over_http(server)
    page = page_with_errors(browser, errors)
    dropped: list[str] = []

    def once(route) -> None:
        path = route.request.url.split("?")[0].removeprefix(server)
        if path in dropped:
            route.continue_()
        else:
            dropped.append(path)
            route.abort("internetdisconnected")

    page.route(re.compile(rf"/(catalogue|games/{game})$"), once)
    page.goto(f"{server}/play/{game}#token={tokens[first]}")
    page.wait_for_selector("#board g.target.step")
    page.wait_for_selector("#chat-form")
    assert sorted(dropped) == ["/catalogue", f"/games/{game}"]
    assert all("ERR_INTERNET_DISCONNECTED" in e for e in errors), errors  # the lost reads, and nothing else


def test_browser_a_tab_that_slept_catches_up_with_last_event_id(start_service, browser):  # noqa: F811
    """The watcher's stream is cut (its reconnections fail) while the other seat moves and ends
    the turn; once the network is back, the page resumes with Last-Event-ID and shows every
    event exactly once."""
    server = start_service(BLUEMOON_SSE_SECONDS="1")  # streams end each second: reconnections are frequent
    errors: list[str] = []
    game, tokens, first = two_humans_over_http(server)
    watcher = page_with_errors(browser, errors)
    resumed: list[str] = []
    watcher.on("request", lambda r: resumed.append(r.headers.get("last-event-id", "")) if "/stream" in r.url else None)
    watcher.goto(f"{server}/play/{game}#token={tokens[1 - first]}")
    watcher.wait_for_selector("#status:has-text('Turn 1')")
    wait_until(watcher, "document.querySelectorAll('#log li').length >= 5")
    seen = watcher.locator("#log li").count()
    cut: list[int] = []
    watcher.route(GAME_STREAM, lambda route: (cut.append(1), route.abort()))
    deadline = time.monotonic() + 10
    while not cut and time.monotonic() < deadline:
        watcher.wait_for_timeout(100)
    assert cut, "the stream was never cut"
    legal = call(server, "GET", f"/games/{game}/legal", token=tokens[first])[1]
    end = {"type": "end_turn", "expected_version": legal["version"]}
    assert call(server, "POST", f"/games/{game}/commands", end, token=tokens[first])[0] == 200
    watcher.wait_for_timeout(1500)  # asleep: the events cannot reach the page
    assert watcher.locator("#log li").count() == seen
    watcher.unroute(GAME_STREAM)
    _, events = call(server, "GET", f"/games/{game}/events", token=tokens[1 - first])
    total = len(events["events"])
    wait_until(watcher, f"document.querySelectorAll('#log li').length >= {total}", timeout=30_000)
    watcher.wait_for_timeout(1500)  # another reconnection: nothing is repeated
    assert watcher.locator("#log li").count() == total > seen
    assert str(seen) in resumed and watcher.text_content("#status").count("Turn 2") == 1
    assert errors == [] or all("stream" in e or "ERR_FAILED" in e for e in errors), errors


def test_browser_a_refused_command_shows_the_problem(server, browser):  # noqa: F811
    """The turn ends behind the page's back, so the page's buttons are stale; its event stream
    is held (routed and left unanswered) until the stale command has been refused, so the live
    event cannot redraw the page first. Once the stream is let through, the page catches up. The
    refusal came as the play socket's problem message, worded as REST's problem would be."""
    errors: list[str] = []
    game, tokens, first = two_humans_over_http(server)
    page = page_with_errors(browser, errors)
    traffic = Traffic(page)
    held: list = []
    page.route(GAME_STREAM, lambda route: held.append(route))  # left unanswered until released below
    page.goto(f"{server}/play/{game}#token={tokens[first]}")
    page.wait_for_selector("#board g.target.step")
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:  # the page opens its stream after the first draw
        page.wait_for_timeout(50)
    assert held, "the page's event stream was not held"
    _, view = call(server, "GET", f"/games/{game}")
    status, _ = call(
        server,
        "POST",
        f"/games/{game}/commands",
        {"type": "end_turn", "expected_version": view["version"]},
        token=tokens[first],
    )
    assert status == 200  # the turn ended behind the page's back: its buttons are stale
    walk(page)
    wait_until(page, "document.querySelector('#problem').textContent.length > 0", timeout=30_000)
    shown = page.text_content("#problem")
    assert "version" in shown or "turn" in shown, shown
    [refused] = traffic.answers("problem")
    assert refused["problem"]["status"] in (409, 412) and traffic.posted == [], (refused, traffic.posted)
    for route in held:
        route.continue_()
    page.unroute(GAME_STREAM)
    wait_until(page, "document.querySelector('#status').textContent.includes('Turn 2')", timeout=30_000)
    assert [e for e in errors if "409" not in e and "412" not in e] == []


def test_browser_the_page_fits_a_390_pixel_phone(server, browser):  # noqa: F811
    errors: list[str] = []
    game, tokens, first = two_humans_over_http(server)
    page = page_with_errors(browser, errors, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(f"{server}/play/{game}#token={tokens[first]}")
    page.wait_for_selector("#actions button[data-type=end_turn]")
    settled(page, server, game)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    boxes = page.locator("input[name=discard]")
    for i in range(3):  # a third discard is refused on the page (at most 2)
        boxes.nth(i).tap()
    assert page.locator("input[name=discard]:checked").count() == 2
    assert "at most 2" in page.text_content("#problem")
    discarded = [boxes.nth(i).get_attribute("value") for i in range(2)]
    page.tap("#actions button[data-type=end_turn]")
    wait_until(page, "document.querySelector('#status').textContent.includes('Turn 2')", timeout=30_000)
    _, events = call(server, "GET", f"/games/{game}/events", token=tokens[first])
    assert next(e for e in events["events"] if e["type"] == "CardsDiscarded")["data"]["cards"] == discarded
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "phone.png"), full_page=True)
    assert errors == []


def test_browser_fairness_generator_matches_the_published_test_vectors(server, browser):  # noqa: F811
    """The page's own generator (service/web/fairness.js), run in the browser, gives every value
    of docs/fairness.md's table of test vectors."""
    table = (Path(__file__).resolve().parents[2] / "docs" / "fairness.md").read_text()
    published = dict(re.findall(r"^\| (.+?) \| (.+?) \|$", table, re.M))
    errors: list[str] = []
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/")
    got = page.evaluate(
        """async () => {
          const f = await import("/web/fairness.js");
          const seed = f.unhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
          const deck = new f.Stream(seed, "deck");
          return {
            "commitment": "`" + f.hex(f.sha256(seed)) + "`",
            "first block, label `deck`": "`" + f.hex(f.block(seed, "deck", 0)) + "`",
            "label `deck`: below(80), below(79), …, below(76)": [80, 79, 78, 77, 76].map((n) => deck.below(n)).join(", "),
            "shuffle of 0..9, label `test`": f.shuffled(seed, "test", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]).join(", "),
            "deck shuffle, first three": f.shuffled(seed, "deck", f.DECK).slice(0, 3).join(", "),
            "`first-player`, 4 players": String(new f.Stream(seed, "first-player").below(4)),
          };
        }"""
    )
    assert len(got) == 6 and got == {k: published[k] for k in got}, (got, published)
    assert errors == []


#: the text on the n-th space of the Earth Temple: its value while open, its owner once paid
_SPACE = "document.querySelectorAll('[data-tile=earth_temple] g.space')[%d - 1].querySelector('text').textContent"


def test_browser_a_space_is_paid_by_ticking_cards_with_the_running_total_mimix_khind_and_hoax(server, browser):  # noqa: F811
    """Seat 0 stands on the Earth Temple (red 5, red 4, red 3) holding red 2, a Mimix pair, a
    Khind, a Hoax 1 and blues. Ticking cards shows the running total; a lone Mimix is refused;
    red 2 + the pair pays 5; then Hoax 1 recolouring blue 3, plus the Khind, pays 4."""
    errors: list[str] = []
    game, tokens = scenario_over_http(server)
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/play/{game}#token={tokens[0]}")
    # what completing it pays, from GET /catalogue, beside the spaces and as the tile's tooltip
    page.wait_for_selector(".group p:has-text('Earth Temple: completing it pays')")
    settled(page, server, game)
    assert "to the most markers" in page.text_content("[data-tile=earth_temple] > title")
    page.click("#board [data-tile=earth_temple] [data-space='0']")
    total = page.locator("#total")
    assert "0 of 5" in total.text_content()
    for card, said in (("red-2a", "2 of 5: add cards"), ("brown-1a", "pairs"), ("brown-2a", "5 of 5: ready")):
        page.click(f"#hand button[data-card={card}]")
        page.wait_for_selector(f"#total:has-text('{said}')")
    assert page.get_attribute("#hand button[data-card=brown-2a]", "aria-pressed") == "true"
    page.click("#builder button[data-type=contribute]")
    wait_until(page, f"{_SPACE % 1} === 'P0'")  # the first space, paid
    page.click("#actions button[data-type=pay]:has-text('red 4')")
    for card in ("white-1a", "blue-3a"):
        page.click(f"#hand button[data-card={card}]")
    page.wait_for_selector("#total:has-text('3 of 4: add cards')")
    page.click("#hand button[data-card=green-1a]")
    build = page.locator("#builder button[data-type=contribute]")
    assert "white-1a makes blue-3a red" in build.text_content()
    build.click()
    wait_until(page, f"{_SPACE % 2} === 'P0'")
    _, mine = call(server, "GET", f"/games/{game}", token=tokens[0])
    spaces = next(t for t in mine["city"] if t["tile"] == "earth_temple")["spaces"]
    assert [s["marker"] for s in spaces] == [0, 0, None]
    assert sorted(mine["players"][0]["hand"]) == ["blue-2a", "yellow-1a"]
    assert errors == []


def test_browser_a_turn_is_played_with_the_keyboard_alone(server, browser):  # noqa: F811
    """Tab to a highlighted tile, Enter walks there (or opens the choice, where Enter takes the
    step); Tab to the end of the turn, Enter ends it."""
    errors: list[str] = []
    game, tokens, first = two_humans_over_http(server)
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/play/{game}#token={tokens[first]}")
    page.wait_for_selector("#actions button[data-type=end_turn]")
    settled(page, server, game)

    def tab_to(selector: str) -> None:
        for _ in range(120):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement.matches({selector!r})"):
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to("#board g.target.step")
    tile = page.evaluate("document.activeElement.dataset.tile")
    page.keyboard.press("Enter")
    if page.locator("#choices button").count():  # a power reaches it too: the step is offered first
        assert page.evaluate("document.activeElement.dataset.type") == "move"
        page.keyboard.press("Enter")
    wait_until(
        page,
        f"[...document.querySelectorAll('#log li')].some(l => l.textContent.includes({tile.replace('_', ' ')!r}))",
        timeout=30_000,
    )
    page.wait_for_selector("#actions button[data-type=end_turn]:not([disabled])")
    tab_to("#actions button[data-type=end_turn]")
    page.keyboard.press("Enter")
    wait_until(page, "document.querySelector('#status').textContent.includes('Turn 2')", timeout=30_000)
    _, view = call(server, "GET", f"/games/{game}")
    assert view["players"][first]["position"] == tile and view["turn"]["number"] == 2
    assert errors == []


def test_browser_fairness_check_catches_a_tampered_layout_and_seed(server, browser):  # noqa: F811
    """A scenario won by one offering, so finished at once. Its layout is drawn from the seed:
    the page agrees with the true log, and catches a served log with two tiles swapped, or with
    another seed revealed."""
    errors: list[str] = []
    game, tokens = scenario_over_http(
        server, figures=["courtyard", "courtyard"], obelisk=[0, 0, 0, 0, 0], crystals=[20, 0], hands=[[], []]
    )
    _, legal = call(server, "GET", f"/games/{game}/legal", token=tokens[0])
    offer = next(c for c in legal["commands"] if c["type"] == "offer")
    match = {"If-Match": f'"{legal["version"]}"'}
    assert call(server, "POST", f"/games/{game}/commands", offer, token=tokens[0], headers=match)[0] == 200
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/play/{game}")
    page.wait_for_selector("#fairness li:has-text('Fair')")
    assert _failed(page) == set()

    def swap_tiles(log: dict) -> dict:
        grid = log["events"][0]["data"]["grid"]
        grid[0][0], grid[1][0] = grid[1][0], grid[0][0]
        return log

    def other_seed(log: dict) -> dict:
        log["events"][-1]["data"]["seed"] = "00" * 32
        return log

    for tamper, caught in ((swap_tiles, {"layout"}), (other_seed, {"seed copies", "commitment", "layout"})):
        liar = page_with_errors(browser, errors)
        _lie(liar, tamper)
        liar.goto(f"{server}/play/{game}")
        liar.wait_for_selector("#fairness li:has-text('UNFAIR')")
        assert _failed(liar) == caught, liar.text_content("#fairness")
    assert errors == []


TO_TILE = {"move", "fly_figure", "fly_dragon", "move_dragon", "use_action"}


def test_browser_every_command_legal_lists_can_be_reached_on_the_page(server, browser):  # noqa: F811
    """On the Main Hall (expansion: any-colour spaces and its action) with Flit 1 and 2, Vulca 1
    and 2 (the red dragon in the city) and cards to pay with: each tile /legal names is a target
    whose choice lists exactly its commands; the powers without a tile are buttons; every way to
    pay each space in each colour, and some with a Hoax or a Khind, ticked card by card, brings a
    Build button for exactly that payment."""
    errors: list[str] = []
    hand = ["grey-1a", "grey-2a", "black-1a", "black-2a", "red-1a", "red-2a", "green-1a", "white-2a"]
    game, tokens = scenario_over_http(
        server,
        {"expansion": True},
        hands=[hand, ["blue-1a"]],
        figures=["main_hall", "courtyard"],
        dragons=[{"dragon": "red", "tile": "courtyard"}],
    )
    _, legal = call(server, "GET", f"/games/{game}/legal", token=tokens[0])
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/play/{game}#token={tokens[0]}")
    page.wait_for_selector("#actions button[data-type=end_turn]")
    settled(page, server, game)
    by_tile: dict[str, list[dict]] = {}
    for c in legal["commands"]:
        if c["type"] in TO_TILE and c.get("to"):
            by_tile.setdefault(c["to"], []).append(c)
    targets = page.eval_on_selector_all("#board g.target", "gs => gs.map(g => g.dataset.tile)")
    assert sorted(targets) == sorted(by_tile) and len(targets) > 20
    assert {c["type"] for cs in by_tile.values() for c in cs} == TO_TILE
    for tile, options in by_tile.items():
        if [c["type"] for c in options] == ["move"]:
            continue  # a click takes the step at once
        page.click(f"#board [data-tile={tile}]", position=ON_THE_TILE)
        offered = page.eval_on_selector_all("#choices button[data-type]", "bs => bs.map(b => b.dataset.type)")
        assert sorted(offered) == sorted(c["type"] for c in options), tile
        page.click("#choices button:has-text('Cancel')")
    tileless = [
        c["type"]
        for c in legal["commands"]
        if c["type"] in ("gain_steps", "fly_dragon", "use_action") and not c.get("to")
    ]
    powers = page.eval_on_selector_all(".group button[data-type]", "bs => bs.map(b => b.dataset.type)")
    assert sorted(t for t in powers if t != "pay") == sorted(tileless) and "fly_dragon" in tileless
    payments = [c for c in legal["commands"] if c["type"] == "contribute"]
    assert {c["space"] for c in payments} == {0, 1, 2} and len(payments) > 10
    # one payment for each space and colour, and a few that play a Hoax or a Khind
    kinds = {(c["space"], c["colour"]): c for c in reversed(payments)}
    hoax = [c for c in payments if c.get("hoax")][:3]
    khind = [c for c in payments if "green-1a" in c["cards"] and c["colour"] != "green"][:3]
    tried = [*kinds.values(), *hoax, *khind]
    assert len({c["colour"] for c in tried}) >= 3 and len(hoax) == len(khind) == 3
    for c in tried:
        page.click(f"#board [data-tile=main_hall] [data-space='{c['space']}']")
        if page.locator("#colour").count():
            page.select_option("#colour", c["colour"])
        for card in c["cards"] + [h["card"] for h in c.get("hoax", [])]:
            page.click(f"#hand button[data-card={card}]")
        builds = page.eval_on_selector_all("#builder button[data-type=contribute]", "bs => bs.map(b => b.textContent)")
        assert any(" + ".join(c["cards"]) in b for b in builds), (c, builds)
        page.click("#builder button[data-type=cancel]")
    assert errors == []


def test_browser_every_card_and_space_carries_its_peoples_symbol_not_its_colour_alone(server, browser):  # noqa: F811
    """Each people has its own symbol (service/web/peoples.js) on its cards and on the spaces of
    its colour, so nobody needs to tell the colours apart; the page is photographed as people
    with protanopia and deuteranopia see it (var/screenshots/vision-*.png)."""
    errors: list[str] = []
    game, tokens = scenario_over_http(server)
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/play/{game}#token={tokens[0]}")
    page.wait_for_selector("#hand .card")
    settled(page, server, game)
    peoples = page.evaluate("import('/web/peoples.js').then((m) => m.PEOPLES)")
    symbols = [p["symbol"] for p in peoples.values()]
    assert len(set(symbols)) == len(symbols) == 8
    cards = page.eval_on_selector_all(
        "#hand .card", "cs => cs.map(c => [c.className.match(/c-(\\w+)/)[1], c.querySelector('.symbol').textContent])"
    )
    assert len(cards) == 8 and all(peoples[colour]["symbol"] == mark for colour, mark in cards), cards
    spaces = page.eval_on_selector_all(
        "#board [data-tile] g.space",
        "gs => gs.map(g => [g.querySelector('title').textContent.split(' ')[0], g.querySelector('.symbol').textContent])",
    )
    assert len(spaces) > 40
    assert all(mark == (peoples[colour]["symbol"] if colour in peoples else "✱") for colour, mark in spaces), spaces
    cdp = page.context.new_cdp_session(page)
    for deficiency in ("protanopia", "deuteranopia"):
        cdp.send("Emulation.setEmulatedVisionDeficiency", {"type": deficiency})
        shot = SHOTS / f"vision-{deficiency}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
    assert errors == []


def test_browser_the_board_reads_at_a_glance(server, browser):  # noqa: F811
    """Figures as pawns in their seat's colours (mine ringed), markers in the same colours,
    dragons drawn on their tiles, the obelisk drawn with its costs and offerings; rubble,
    rebuilt and reachable tell apart in all four combinations; the last move is framed."""
    errors: list[str] = []
    # seat 0 on the Courtyard: the four starting tiles next to it are the tiles a step reaches
    game, tokens = scenario_over_http(
        server,
        hands=[["yellow-3a", "white-3a"], ["black-1a"]],
        figures=["courtyard", "courtyard"],
        markers=[{"building": "aqueduct", "space": 0, "seat": 0}, {"building": "aqueduct", "space": 1, "seat": 1}],
        dragons=[{"dragon": "green", "tile": "aqueduct"}],
        obelisk=[1],
        rebuilt=["fire_temple", "water_temple", "mill"],
    )
    page = page_with_errors(browser, errors)
    page.goto(f"{server}/play/{game}#token={tokens[0]}")
    page.wait_for_selector("#actions button[data-type=end_turn]")
    settled(page, server, game)
    colours = page.evaluate("import('/web/board.js').then((m) => m.SEAT_COLOURS)")
    pawns = page.eval_on_selector_all(
        "[data-tile=courtyard] g.figure",
        "gs => gs.map(g => [Number(g.dataset.seat), g.querySelector('circle').getAttribute('fill'), g.classList.contains('mine')])",
    )
    assert sorted(pawns) == [[0, colours[0], True], [1, colours[1], False]]
    markers = page.eval_on_selector_all(
        "[data-tile=aqueduct] circle.marker", "cs => cs.map(c => [Number(c.dataset.owner), c.getAttribute('stroke')])"
    )
    assert markers == [[0, colours[0]], [1, colours[1]]]
    assert page.locator("[data-tile=aqueduct] polygon.dragon[data-dragon=green]").count() == 1
    obelisk = page.eval_on_selector_all("#obelisk g.obelisk-space", "gs => gs.map(g => g.textContent.trim())")
    assert obelisk[0] == "P1" and obelisk[1:3] == ["7", "8"] and len(obelisk) == 11

    def looks(tile: str) -> tuple:
        return tuple(
            page.evaluate(
                """(tile) => {
              const g = document.querySelector(`[data-tile=${tile}]`), rect = g.querySelector("rect.tile");
              const style = getComputedStyle(rect);
              return [rect.getAttribute("fill"), style.stroke, style.strokeWidth, Boolean(g.querySelector(".reach"))];
            }""",
                tile,
            )
        )

    combos = {
        "rebuilt, reachable": looks("fire_temple"),
        "rubble, reachable": looks("earth_temple"),
        "rebuilt, not reachable": looks("mill"),
        "rubble, not reachable": looks("aqueduct"),
    }
    assert len(set(combos.values())) == 4, combos
    assert all(fill != "url(#rubble)" for fill, *_ in (combos["rebuilt, reachable"], combos["rebuilt, not reachable"]))
    walk(page)
    page.wait_for_selector("[data-tile] rect.last")
    moved = call(server, "GET", f"/games/{game}")[1]["players"][0]["position"]
    assert page.eval_on_selector("rect.last", "r => r.closest('[data-tile]').dataset.tile") == moved
    page.screenshot(path=str(SHOTS / "board-at-a-glance.png"), full_page=True)
    assert errors == []
