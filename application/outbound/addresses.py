"""Where the service may connect on a stranger's say-so (webhooks, Web Push endpoints, Discord
and Slack incoming webhooks): a public address on a web port, nothing else.

An IPv6 address can carry an IPv4 one that a router or the kernel connects to in its stead, so
the IPv4 inside is what is judged: IPv4-mapped (``::ffff:a.b.c.d``), IPv4-compatible
(``::a.b.c.d``), NAT64 (``64:ff9b::/96``, RFC 6052), 6to4 (``2002::/16``) and Teredo
(``2001::/32``: its server and its client). The local-use NAT64 prefix ``64:ff9b:1::/48``
(RFC 8215) is refused whole: where its IPv4 sits depends on the prefix length its operator
chose, and it only ever reaches a network of theirs.
"""

from __future__ import annotations

import ipaddress

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: The only ports a stranger's URL may name: https on 443, and http (where allowed) on 80.
WEB_PORTS = {"https": 443, "http": 80}

NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address leads to (none for a plain IPv6 address)."""
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)
    if ip in NAT64 or (ip in IPV4_COMPATIBLE and int(ip) > 1):  # :: and ::1 are IPv6's own
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    return []


def _public(ip: IPAddress) -> bool:
    return ip.is_global and not ip.is_multicast


def why_not_public(address: str) -> str | None:
    """None for a public address; otherwise what it is, for the refusal."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in LOCAL_NAT64:
            return f"{ip}, a local-use NAT64 address (64:ff9b:1::/48), which leads into a private network"
        for inner in embedded_ipv4(ip):
            if not _public(inner):
                return f"{ip}, which carries {inner}, not a public address"
    if not _public(ip):
        return f"{ip}, which is not a public address (loopback, private, link-local, multicast, reserved or metadata)"
    return None


def why_not_web_port(scheme: str, port: int) -> str | None:
    """None for the scheme's own port (443 for https, 80 for http); otherwise why not."""
    if WEB_PORTS.get(scheme) == port:
        return None
    return f"port {port} is not allowed: an {scheme} URL uses port {WEB_PORTS.get(scheme)} (or names none)"
