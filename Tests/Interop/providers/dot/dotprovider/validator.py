"""The OAuth2 validator of the test provider: DOT's own, plus standard OIDC user claims.

Stock DOT puts only ``sub`` (the user's primary key) in ID tokens and userinfo. DOT's
documented extension point for more is ``get_additional_claims``; the request-agnostic form
(one argument, callables as values) also lists the claims in discovery's
``claims_supported``. DOT's ``oidc_claim_scope`` then releases each claim only when its scope
was granted: preferred_username/name/given_name/family_name need ``profile``, email and
email_verified need ``email``.
"""

from oauth2_provider.oauth2_validators import OAuth2Validator


class ClaimsValidator(OAuth2Validator):
    def get_additional_claims(self):
        return {
            "preferred_username": lambda request: request.user.get_username(),
            "name": lambda request: request.user.get_full_name(),
            "given_name": lambda request: request.user.first_name,
            "family_name": lambda request: request.user.last_name,
            "email": lambda request: request.user.email,
            "email_verified": lambda request: True,
        }
