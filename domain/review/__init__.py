"""The review of a finished game: what each seat's decisions cost and its draws gave, in
chances of finishing first, judged by the value model (``domain.bots.value``). Pure: no I/O."""

from .replay import NotReviewable
from .review import review_game, review_seed

__all__ = ["NotReviewable", "review_game", "review_seed"]
