"""A finished game's review: what each decision cost and what each draw gave (issue 40)."""
