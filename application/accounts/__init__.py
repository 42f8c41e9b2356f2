"""Accounts: people, their sign-in (links, codes, passkeys) and tokens, and the names others see."""
