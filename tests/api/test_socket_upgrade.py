"""The play socket's URL asked for without a WebSocket upgrade (an HTTP client, a fuzzer)."""

from __future__ import annotations


def test_a_plain_get_of_the_socket_is_told_to_upgrade(api):
    """Not werkzeug's bare 400: a 426 problem naming the upgrade, with ``Upgrade: websocket``."""
    response = api.http.get("/games/nothing-here/socket")
    assert response.status_code == 426 and response.headers["Upgrade"] == "websocket"
    assert response.get_json()["code"] == "websocket_required"


UPGRADE = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "x3JJHMbDL1EzLkh9GBhXDw==",
}


def test_a_socket_the_session_cookie_would_sign_in_is_refused_from_another_origin(api):
    """A page of another origin (a sibling subdomain or port: SameSite=Lax still sends the cookie)
    must not open the play socket as the visitor and play their seat: 403 cross_origin before the
    upgrade, as every unsafe request the cookie signs in."""
    api.http.set_cookie("bm_session", "the-visitors-session")
    response = api.http.get(
        "/games/nothing-here/socket", headers={**UPGRADE, "Origin": "http://games.attacker.example"}
    )
    assert response.status_code == 403 and response.get_json()["code"] == "cross_origin"


def test_a_socket_with_a_token_is_not_held_to_the_cookies_origin_rule(api):
    """A program or another origin's page with a bearer token is not signed in by the cookie."""
    api.http.set_cookie("bm_session", "the-visitors-session")
    response = api.http.get(
        "/games/nothing-here/socket",
        headers={**UPGRADE, "Origin": "http://games.attacker.example", "Authorization": "Bearer bm_seat_unknown"},
    )
    assert response.status_code != 403 or response.get_json()["code"] != "cross_origin"
