"""A person's stream: what happens to them across their games (a game started, their turn, a game ended,
a rating changed, a rematch offered), written through the outbox into one stream per account."""
