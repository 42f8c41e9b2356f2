"""What the tests share: every test module imports its helpers from here or from a conftest.py,
never from another test module (tests/tooling/test_test_layout.py)."""
