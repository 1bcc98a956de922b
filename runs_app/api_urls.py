from django.contrib.auth.decorators import login_required
from django.urls import path, re_path

from kit.api_docs import ApiDocsView, Router, docs_asset
from kit.api_errors import not_found
from kit.api_schema import SchemaView

from . import api

router = Router()  # its root lists the analysis, schema and docs endpoints too
router.register("models", api.ModelViewSet, basename="api-model")
router.register("runs", api.RunViewSet, basename="api-run")
router.register("responses", api.ResponseViewSet, basename="api-response")

urlpatterns = router.urls + [path("schema/", SchemaView.as_view(), name="api-schema")]

# The API answers 401/403 itself (DRF authentication) instead of redirecting to the
# sign-in page as LoginRequiredMiddleware does for pages.
for pattern in urlpatterns:
    pattern.callback.login_required = False

# The docs are pages for people: signed-out visitors go to the sign-in page (DRF's views
# opt out of LoginRequiredMiddleware, hence the decorator).
urlpatterns += [
    path("docs/", login_required(ApiDocsView.as_view(url_name="api-schema", title="CFPD Workbench API")),
         name="api-docs"),
    path("docs/assets/<str:name>", login_required(docs_asset), name="api-docs-asset"),
]

# Last: any other /api/ URL (/api/nope/, /api/runs/0.5/cancel/, /api/analysis/nope/) is a
# JSON 404, not Django's HTML page (this file is the last include under /api/).
urlpatterns += [re_path(r"^.*$", not_found, name="api-not-found")]
