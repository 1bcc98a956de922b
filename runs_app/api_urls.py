from django.urls import path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from . import api

router = DefaultRouter()
router.register("models", api.ModelViewSet, basename="api-model")
router.register("runs", api.RunViewSet, basename="api-run")
router.register("responses", api.ResponseViewSet, basename="api-response")

urlpatterns = router.urls + [path("schema/", SpectacularAPIView.as_view(), name="api-schema")]

# The API answers 401/403 itself (DRF authentication) instead of redirecting to the
# sign-in page as LoginRequiredMiddleware does for pages.
for pattern in urlpatterns:
    pattern.callback.login_required = False
