"""The play socket's one way out (service/play_socket.py ``PlaySocket.send``): a client that left
while its answer was being made ends the socket as a close does, never as a server error. CI saw
it on 2026-11-28: a browser closed as its end of turn was answered, and the answer's send raised
wsproto's LocalProtocolError, logged as an unhandled error with a 500."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest
import simple_websocket
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Request

from service.play_socket import PlaySocket


def _socket_whose_client_closed() -> PlaySocket:
    """A PlaySocket around a server-side wsproto connection the client has closed."""
    client, server = WSConnection(ConnectionType.CLIENT), WSConnection(ConnectionType.SERVER)
    server.receive_data(client.send(Request(host="example.com", target="/games/g/socket")))
    next(server.events())  # the client's Request
    client.receive_data(server.send(AcceptConnection()))
    list(client.events())
    server.receive_data(client.send(CloseConnection(code=1001)))
    list(server.events())
    server.send(CloseConnection(code=1001))  # the server's close answered: the connection is closed
    socket = PlaySocket.__new__(PlaySocket)
    socket_written: list[bytes] = []
    socket._lock = threading.Lock()
    socket.ws = SimpleNamespace(ws=server, sock=SimpleNamespace(sendall=socket_written.append), connected=True)
    return socket


def test_an_answer_to_a_client_that_left_ends_the_socket_as_a_close():
    socket = _socket_whose_client_closed()
    with pytest.raises(simple_websocket.ConnectionClosed):
        socket.send({"type": "result", "id": "c1", "result": {}})
    assert socket.ws.connected is False  # the follower stops at its next look
    assert socket.ws.sock.sendall.__self__ == []  # nothing written to the connection
