"""The REST API's token authentication: `Authorization: Bearer cfpd_…`. Listed first in
REST_FRAMEWORK's authentication classes, so that a caller without credentials gets 401
with `WWW-Authenticate: Bearer realm="api"` (DRF answers 403 when the first class names
no scheme, as session authentication does)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from . import api_tokens

KEYWORDS = (b"bearer", b"token")  # "Token" as DRF's own TokenAuthentication, for clients written for it


class ApiTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None  # no token: session or Basic may still sign the caller in
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Send the token as 'Authorization: Bearer cfpd_…' (one word "
                                                  "after Bearer).")
        try:
            token = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        user, why = api_tokens.check_token(token, request)
        if user is None:
            raise exceptions.AuthenticationFailed(why)
        return user, token

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """The token in the OpenAPI schema (securitySchemes), so that Swagger UI's Authorize
    button and schema-driven clients know how to send it."""

    target_class = ApiTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "bearerFormat": "cfpd_ followed by 40 characters",
                "description": "A personal API token (console: API tokens, or `manage.py api_token create`)."}
