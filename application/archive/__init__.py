"""The archive of finished games: where it is (``opening.py``) and how a game moves there (``moves.py``)."""
