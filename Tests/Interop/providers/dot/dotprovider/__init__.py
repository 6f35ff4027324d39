"""A minimal Django project around Django OAuth Toolkit, started by ../server.py for tests."""
