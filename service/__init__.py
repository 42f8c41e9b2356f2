"""The Flask API of the Blue Moon City service."""
