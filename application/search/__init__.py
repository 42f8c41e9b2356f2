"""Search over a person's games, and their export (application/search/player_games.py)."""
