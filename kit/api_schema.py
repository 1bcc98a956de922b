"""What the API answers besides success, in its OpenAPI schema: every operation lists
each status code it can return, with the JSON body of that answer.

Views name their own 400, 404 and 409 with `errors(...)` in `extend_schema(responses=...)`;
`document_auth_errors` (a drf-spectacular postprocessing hook, see SPECTACULAR_SETTINGS)
adds 401 and 403 to every operation that needs a signed-in caller, since all of them answer
both the same way."""

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpResponse
from django.urls import get_resolver
from django.utils import translation
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from drf_spectacular.views import SpectacularAPIView

ERROR = {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}
# DRF's validation errors: each bad field with its messages ({"seed": ["must be ..."]}; a list
# item's messages under its index), or {"detail": "..."} for a refusal that names no field.
BAD_REQUEST = {"type": "object", "properties": {"detail": {"type": "string"}},
               "additionalProperties": {"oneOf": [{"type": "array", "items": {"type": "string"}},
                                                  {"type": "object"}]}}

WHAT = {
    400: ("A bad parameter or body: each bad field with its messages, or a detail.", BAD_REQUEST),
    401: ("No credentials, or a wrong, revoked or malformed token or password (with WWW-Authenticate).", ERROR),
    403: ("Signed in, but the user's role does not allow this.", ERROR),
    404: ("No such object, or a page number past the last page.", ERROR),
    409: ("The run cannot do this in its state (already cancelled, imported answers, budget spent); "
          "the detail says why.", ERROR),
}


def errors(*codes) -> dict:
    """OpenApiResponses for the given error codes, for `extend_schema(responses=...)`."""
    return {code: OpenApiResponse(response=WHAT[code][1], description=WHAT[code][0]) for code in codes}


def _response(code) -> dict:
    description, schema = WHAT[code]
    answer = {"description": description, "content": {"application/json": {"schema": schema}}}
    if code == 401:
        answer["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"},
                                                  "description": 'Bearer realm="api"'}}
    return answer


def document_auth_errors(result, generator, request, public):
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            if {} in operation.get("security", [{}]):  # open to anonymous callers
                continue
            for code in (401, 403):
                operation["responses"].setdefault(str(code), _response(code))
    return result


NO_NUL = "^[^\\x00]*$"  # kit.params refuses a NUL character in any text


def query(name: str, kind: str = "string", *, many: bool = False, minimum: int | None = None,
          maximum: int | None = None, max_length: int = 200, description: str | None = None):
    """A query parameter with the bounds kit.params enforces, so that the schema says
    which values are accepted (an integer 1 to 2**63-1 by default, a text of at most 200
    characters without NUL, at most 200 repetitions)."""
    if kind == "integer":
        schema = {"type": "integer", "minimum": 1 if minimum is None else minimum,
                  "maximum": 2**63 - 1 if maximum is None else maximum}
    elif kind == "flag":  # kit.params.flag: on for 1, on, true, yes; off for any other text
        schema = {"type": "string"}
    else:
        schema = {"type": "string", "maxLength": max_length, "pattern": NO_NUL}
    if many:
        schema = {"type": "array", "items": schema, "maxItems": 200}
    return OpenApiParameter(name, schema, OpenApiParameter.QUERY, description=description,
                            explode=True if many else None)


class SchemaView(SpectacularAPIView):
    """drf-spectacular's schema view, the schema made once per process for each (version,
    language, format) and then served as it was written: generating it walks every view and
    serializer (about 0.3 s here, twice that with its YAML), and it changes only with the
    code. The schema is public (every operation, whoever asks: `SERVE_PUBLIC`), so it is the
    same for every signed-in caller. Made again after a change of settings or URLs (tests).
    Only the schemas a caller cannot multiply are kept: no `version` (the API has one), a
    language of `LANGUAGES`, a renderer's own media type; any other request (`?version=x`,
    `?lang=zz`, `Accept: application/json; indent=7`) is made for itself, as before, so that
    what a process keeps stays bounded whatever the callers send."""

    def _get_schema_response(self, request):
        version = self.api_version or request.version or self._get_version_parameter(request)
        language = translation.get_language()
        if (version is not None or language not in dict(settings.LANGUAGES)
                or request.accepted_media_type != request.accepted_renderer.media_type):
            return super()._get_schema_response(request)
        key = (get_resolver(self.urlconf if isinstance(self.urlconf, str) else None), language,
               request.accepted_media_type)
        if key not in _MADE:
            response = super()._get_schema_response(request)
            response.accepted_renderer = request.accepted_renderer
            response.accepted_media_type = request.accepted_media_type
            response.renderer_context = self.get_renderer_context()
            _MADE[key] = (response.rendered_content, response["Content-Type"], response["Content-Disposition"])
        content, content_type, disposition = _MADE[key]
        return HttpResponse(content, content_type=content_type, headers={"Content-Disposition": disposition})


_MADE: dict[tuple, tuple[bytes, str, str]] = {}


@receiver(setting_changed)
def _forget_schemas(**kwargs):
    _MADE.clear()
