"""Background work: turns and other outbox entries handed to the workers, and RQ's adapter."""
