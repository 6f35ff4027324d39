"""Scopes backend (DOT's SCOPES_BACKEND_CLASS extension point): the OpenID scopes of the settings
for everyone, plus client-credentials API scopes that only the confidential clients can get.

Discovery (`scopes_supported`) and the public clients see exactly the scopes of
OAUTH2_PROVIDER["SCOPES"], as before; the confidential clients may ask for
CLIENT_CREDENTIALS_SCOPES only (anything else is `invalid_scope`), and get them all when their
token request has no `scope`.
"""

from django.conf import settings
from oauth2_provider.scopes import SettingsScopes


def _is_confidential_test_client(application):
    return application is not None and application.client_id in settings.CONFIDENTIAL_CLIENT_IDS


class TestScopes(SettingsScopes):
    def get_all_scopes(self):
        return {**super().get_all_scopes(), **settings.CLIENT_CREDENTIALS_SCOPES,
                **settings.CLIENT_CREDENTIALS_OTHER_SCOPES}

    def get_available_scopes(self, application=None, request=None, *args, **kwargs):
        if _is_confidential_test_client(application):
            return list(settings.CLIENT_CREDENTIALS_SCOPES)
        return super().get_available_scopes(application, request, *args, **kwargs)

    def get_default_scopes(self, application=None, request=None, *args, **kwargs):
        if _is_confidential_test_client(application):
            return list(settings.CLIENT_CREDENTIALS_SCOPES)
        return super().get_default_scopes(application, request, *args, **kwargs)
