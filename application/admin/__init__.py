"""What an operator does by hand (``bluemoon-admin``, cli/admin/): stuck work and failed jobs,
ending and deleting games, suspensions, a person's data, the game index, and backups."""
