"""The play socket's URL asked for without a WebSocket upgrade (an HTTP client, a fuzzer)."""

from __future__ import annotations


def test_a_plain_get_of_the_socket_is_told_to_upgrade(api):
    """Not werkzeug's bare 400: a 426 problem naming the upgrade, with ``Upgrade: websocket``."""
    response = api.http.get("/games/nothing-here/socket")
    assert response.status_code == 426 and response.headers["Upgrade"] == "websocket"
    assert response.get_json()["code"] == "websocket_required"
