"""Challenges that wait for an answer: application/challenges/challenges.py."""
