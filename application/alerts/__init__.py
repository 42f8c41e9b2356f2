"""Turn alerts: the outbox entries an append writes, a person's channels, what an alert says, the batched mail, the Web Push identity."""
