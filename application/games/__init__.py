"""Games: create them, take their seats, play a command exactly once; what a request reads of a game, its clocks, its published log and audit."""
