"""Every alert channel checks a TLS certificate against the system's certificate authorities and
``SSL_CERT_FILE``'s: a push service, a Discord or Slack receiver, or an ``smtps://`` mail server
behind a private CA (made here) is reached once the operator names the CA, and refused while it
is unknown."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from aiosmtpd.controller import Controller
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from py_vapid import Vapid02

from application.outbound.webhooks import Target
from events.embedded import free_port
from tests.support.alerts import PushService, browser_keys
from tests.support.mail import Inbox
from workers import alert_channels, webhook_delivery
from workers.alert_channels import ChannelFailed


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def private_ca(folder: Path) -> tuple[Path, Path, Path]:
    """A CA of its own and a certificate it signed for 127.0.0.1: the CA's, the server's and its
    key's PEM files."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder(subject_name=_name("Bluemoon test CA"), issuer_name=_name("Bluemoon test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )  # signs certificates and CRLs
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    server = (
        x509.CertificateBuilder(subject_name=_name("127.0.0.1"), issuer_name=ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    files = folder / "ca.pem", folder / "server.pem", folder / "server-key.pem"
    files[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files[1].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    files[2].write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return files


@pytest.fixture
def tls_receiver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[PushService, str, Path]:
    """A push service (it answers any POST) on https://127.0.0.1 with a certificate of a private
    CA: the receiver, its https URL, and the CA's file."""
    ca, cert, key = private_ca(tmp_path)
    receiver = PushService(201)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    receiver.server.socket = context.wrap_socket(receiver.server.socket, server_side=True)
    monkeypatch.setenv("WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    return receiver, receiver.endpoint.replace("http://", "https://"), ca


def _push(endpoint: str) -> int:
    vapid = Vapid02()
    vapid.generate_keys()
    _, keys = browser_keys()
    return alert_channels.push({"endpoint": endpoint, "keys": keys}, {"game": "g"}, vapid, "mailto:ops@example.com")


def test_push_and_chat_channels_trust_the_ca_ssl_cert_file_names_and_no_other(tls_receiver, monkeypatch):
    receiver, url, ca = tls_receiver
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    with pytest.raises(ChannelFailed, match="CERTIFICATE_VERIFY_FAILED"):
        _push(url)  # the private CA is not the system's: the certificate is checked, not waved through
    with pytest.raises(ChannelFailed, match="CERTIFICATE_VERIFY_FAILED"):
        alert_channels.post_json("discord.url", url, {"content": "your turn"})
    assert receiver.received == []

    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    assert _push(url) == 201
    assert alert_channels.post_json("slack.url", url, {"text": "your turn"}) == 201
    assert [r["path"] for r in receiver.received] == [urlsplit(url).path] * 2


def test_mail_over_smtps_trusts_the_ca_ssl_cert_file_names_and_no_other(tmp_path, monkeypatch):
    ca, cert, key = private_ca(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    inbox, port = Inbox(), free_port()
    server = Controller(inbox, hostname="127.0.0.1", port=port, ssl_context=context)
    server.start()
    monkeypatch.setenv("SMTP_URL", f"smtps://127.0.0.1:{port}")
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    try:
        with pytest.raises(ChannelFailed, match="CERTIFICATE_VERIFY_FAILED"):
            alert_channels.mail("bo@example.com", "Your turn", "text", "<p>html</p>", "mail_1", "https://x/u")
        assert inbox.messages == []  # the sign-in links and the login would have gone to whoever answered
        monkeypatch.setenv("SSL_CERT_FILE", str(ca))
        alert_channels.mail("bo@example.com", "Your turn", "text", "<p>html</p>", "mail_2", "https://x/u")
        assert [to for to, _ in inbox.messages] == [["bo@example.com"]]
    finally:
        server.stop()


def test_push_and_webhook_connections_share_one_trust_store_a_process_for_the_same_ca_settings(monkeypatch):
    """Loading the system's authorities costs 20-22 ms of CPU, and every delivery connects afresh
    (a push session, an https webhook, Discord or Slack post): the context is made once for the
    same SSL_CERT_FILE and SSL_CERT_DIR (bench/alerts_speed.py's push rate), afresh when they change."""
    made = []
    real = ssl.create_default_context
    monkeypatch.setattr(ssl, "create_default_context", lambda: made.append(1) or real())
    monkeypatch.setenv("SSL_CERT_FILE", f"/nonexistent/ca-{free_port()}.pem")  # settings no call has used yet
    target = Target("https", "push.example.com", 443, "/p", "127.0.0.1")
    sessions = [alert_channels.pinned_session(target) for _ in range(3)]
    adapters = [s.get_adapter("https://push.example.com") for s in sessions]
    connections = [webhook_delivery._PinnedTLS(target) for _ in range(3)]
    contexts = {id(a.poolmanager.connection_pool_kw["ssl_context"]) for a in adapters}
    contexts |= {id(c._context) for c in connections}  # type: ignore[attr-defined]
    assert (len(made), len(contexts)) == (1, 1)
    monkeypatch.delenv("SSL_CERT_FILE")
    alert_channels.pinned_session(target)
    assert len(made) <= 2  # other settings: their own context (made here unless an earlier call had)
