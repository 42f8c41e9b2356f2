"""CORS for web pages on other origins, and compression for clients that accept it."""

from __future__ import annotations

import gzip
import json


def test_a_preflight_from_another_origin_allows_the_headers_the_api_reads(api, game):
    g, _ = game
    r = api.http.options(
        f"/games/{g}/commands",
        headers={
            "Origin": "https://player.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, if-match, idempotency-key, content-type",
        },
    )
    assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == "*"
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "if-match", "idempotency-key", "content-type"} <= allowed
    r = api.http.options(
        f"/games/{g}/stream",
        headers={
            "Origin": "https://player.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "last-event-id",
        },
    )
    assert "last-event-id" in r.headers["Access-Control-Allow-Headers"].lower()


def test_scripts_on_another_origin_may_read_etag_retry_after_and_rate_limit_headers(api, game):
    g, tokens = game
    r = api.get(f"/games/{g}", token=tokens[0], headers={"Origin": "https://player.example"})
    exposed = {h.strip().lower() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "retry-after", "ratelimit-remaining", "location"} <= exposed
    assert "Access-Control-Allow-Credentials" not in r.headers  # tokens travel in headers, never cookies


def test_views_and_legal_are_gzipped_when_accepted_but_the_event_stream_never(api, game):
    g, tokens = game
    plain = api.get(f"/games/{g}", token=tokens[0])
    zipped = api.http.get(f"/games/{g}", headers={"Accept-Encoding": "gzip", "Authorization": f"Bearer {tokens[0]}"})
    assert zipped.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["Vary"]
    assert json.loads(gzip.decompress(zipped.data)) == plain.json and len(zipped.data) < len(plain.data) / 2
    seat = api.get(f"/games/{g}").json["turn"]["seat"]
    # the expanded list is always long enough to compress (bodies under 500 bytes are sent as they are)
    legal = api.http.get(
        f"/games/{g}/legal?expand=true", headers={"Accept-Encoding": "gzip", "Authorization": f"Bearer {tokens[seat]}"}
    )
    assert legal.headers["Content-Encoding"] == "gzip"
    small = api.http.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in small.headers
    api.app.config["SSE_SECONDS"] = 0.2
    stream = api.http.get(f"/games/{g}/stream", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in stream.headers and b"id: 1\n" in stream.data


def test_the_etag_of_a_compressed_view_works_in_if_match_and_if_none_match(api, game):
    g, tokens = game
    zipped = api.http.get(f"/games/{g}", headers={"Accept-Encoding": "gzip", "Authorization": f"Bearer {tokens[0]}"})
    etag = zipped.headers["ETag"]
    assert etag.endswith(':gzip"')
    seat_0 = {"Accept-Encoding": "gzip", "Authorization": f"Bearer {tokens[0]}"}
    again = api.http.get(f"/games/{g}", headers={**seat_0, "If-None-Match": etag})
    assert again.status_code == 304
    seat = api.get(f"/games/{g}").json["turn"]["seat"]
    r = api.post(
        f"/games/{g}/commands",
        token=tokens[seat],
        json={"type": "end_turn", "discards": []},
        headers={"If-Match": etag, "Idempotency-Key": "gz"},
    )
    assert r.status_code == 200
