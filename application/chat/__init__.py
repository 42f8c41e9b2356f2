"""Game chat: each game's rooms (its seats', its spectators'), kept with the game, apart from its log."""
