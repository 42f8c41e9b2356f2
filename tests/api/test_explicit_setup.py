"""A game played on a real table can be re-entered: given grid, deck order and first player."""

from domain.peoples import CANONICAL_DECK


def test_an_explicit_setup_over_http(api):
    grid = [{"tile": "courtyard", "row": 2, "col": 2}]
    others = [
        "fire_temple",
        "water_temple",
        "royal_palace",
        "earth_temple",
        "aqueduct",
        "hospice",
        "citadel",
        "watchtower",
        "great_hall",
        "university",
        "market_hall",
        "library",
        "trading_house",
        "flight_tower",
        "city_residence",
        "monastery_tower",
        "caravansera",
        "thermae",
        "iron_foundry",
        "mill",
    ]
    cells = [(r, c) for r in range(5) for c in range(5) if (r, c) not in {(0, 0), (0, 4), (4, 0), (4, 4), (2, 2)}]
    grid += [{"tile": t, "row": r, "col": c} for t, (r, c) in zip(others, cells)]
    deck = list(reversed(CANONICAL_DECK))
    body = {
        "seats": [{"kind": "human"}, {"kind": "human"}],
        "layout": "explicit",
        "edition": "classic",
        "setup": {"grid": grid, "deck": deck, "first_player": 1},
    }
    created = api.post("/games", json=body)
    assert created.status_code == 201, created.json
    token = created.json["seats"][0]["token"]
    view = api.get(f"/games/{created.json['game']}", token=token).json
    assert view["turn"]["seat"] == 1 and view["options"]["layout"] == "explicit"
    assert {(t["tile"], t["row"], t["col"]) for t in view["city"]} == {(g["tile"], g["row"], g["col"]) for g in grid}
    assert view["players"][0]["hand"] == sorted(deck[:8])
    bad = dict(body, setup={"grid": grid[:-1], "deck": deck})
    r = api.post("/games", json=bad)
    assert r.status_code == 422 and "setup" in r.json["errors"]
