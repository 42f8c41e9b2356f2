"""People, not only seats: who follows, mutes and blocks whom, and who is suspended."""
