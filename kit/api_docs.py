"""The front of the REST API: its root page, which lists every endpoint (the router's and
those beside it: the analysis figures, the schema, the docs) with a way back to the site,
and browsable docs (Swagger UI) for signed-in users.

Swagger UI's files come from the drf-spectacular-sidecar package and are served from
here, so the docs work offline (drf-spectacular's default loads them from a CDN) and no
setting has to name the package. Without it the docs page says so and points to the schema.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from django.http import Http404
from django.urls import NoReverseMatch, reverse
from django.views.static import serve
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework import permissions, routers
from rest_framework.response import Response

_SIDECAR = importlib.util.find_spec("drf_spectacular_sidecar")
SWAGGER_DIST = (Path(_SIDECAR.submodule_search_locations[0]) / "static" / "drf_spectacular_sidecar" / "swagger-ui-dist"
                if _SIDECAR else None)
SWAGGER_FILES = {"swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "favicon-32x32.png"}

# Endpoints beside the router's, in the order the root lists them: (name, url name, what it is).
EXTRA_ENDPOINTS = [
    ("analysis", "api-analysis", "The dashboard's figures as tables (GET with the dashboard's filters)."),
    ("territories", "api-analysis-territories", "Territorial disputes: concurrence scores and the case view (GET with "
                                                "the page's filters)."),
    ("crisis", "api-analysis-crisis", "Crisis simulations: inconsistency per model and temperature, the ablation "
                                      "bands and the most divergent answers (GET with the page's filters)."),
    ("schema", "api-schema", "The OpenAPI 3 schema (YAML; ?format=json for JSON)."),
    ("docs", "api-docs", "Browsable docs of every endpoint (Swagger UI; signed-in users)."),
    ("site", "home", "Back to CFPD Workbench."),
]


class ApiRoot(routers.APIRootView):
    """Models, runs and responses, the dashboard's analysis figures, the OpenAPI schema and
    its browsable docs. Sign in on the site (session) or send HTTP Basic credentials.
    """

    def get_view_name(self):
        return "CFPD Workbench API"

    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        for name, url_name, _ in EXTRA_ENDPOINTS:
            try:
                response.data[name] = request.build_absolute_uri(reverse(url_name))
            except NoReverseMatch:  # an endpoint not mounted in this project
                continue
        return response


class Router(routers.DefaultRouter):
    APIRootView = ApiRoot


class ApiDocsView(SpectacularSwaggerSplitView):
    """Swagger UI over /api/schema/, with its files served from the sidecar package. The
    split view serves its start-up script at ?script rather than inline, which the site's
    Content-Security-Policy (no inline scripts) would block."""

    permission_classes = [permissions.IsAuthenticated]
    template_name = "rest_framework/api_docs.html"  # Swagger UI under a bar back to the site and the API root

    @staticmethod
    def _swagger_ui_resource(filename):
        return reverse("api-docs-asset", args=[filename])

    @staticmethod
    def _swagger_ui_favicon():
        return reverse("api-docs-asset", args=["favicon-32x32.png"])

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        if SWAGGER_DIST is None:
            return Response({"detail": "The API docs need the drf-spectacular-sidecar package (pip install "
                                       "drf-spectacular-sidecar); the schema is at /api/schema/."}, status=503)
        return super().get(request, *args, **kwargs)


def docs_asset(request, name):
    """One of Swagger UI's files (signed-in users; the site's sign-in middleware sees to it)."""
    if SWAGGER_DIST is None or name not in SWAGGER_FILES:
        raise Http404(name)
    response = serve(request, name, document_root=str(SWAGGER_DIST))
    response["Cache-Control"] = "private, max-age=86400"
    return response
