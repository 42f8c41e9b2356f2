"""Hypothesis' random games (options and seed) and the settings the property tests run them with."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from domain import Edition, Options

games = st.builds(
    lambda players, edition, expansion, seed: (Options(players, edition, expansion and edition is Edition.CMON), seed),
    st.integers(2, 4),
    st.sampled_from(Edition),
    st.booleans(),
    st.binary(min_size=8, max_size=8),
)


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
