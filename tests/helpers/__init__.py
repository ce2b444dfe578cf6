"""What the tests share, imported by name: conftest files hold fixtures only, test modules hold tests only."""
