"""The lobby: open games, rematches and ratings."""
