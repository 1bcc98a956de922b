from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from accounts.views import home

admin.site.site_header = "CFPD Workbench"
admin.site.site_title = "CFPD Workbench"
admin.site.index_title = "Authoring"
admin.site.enable_nav_sidebar = False

urlpatterns = [
    path("", home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("benchmarks/", include("benchmarks_app.urls")),
    path("runs/", include("runs_app.urls")),
    path("encoding/", include("encoding_app.urls")),
    path("analysis/territories/", include("territories_app.urls")),
    path("analysis/crisis/validation/", include("crisis_app.validation_urls")),
    path("analysis/crisis/", include("crisis_app.urls")),
    path("analysis/", include("analysis_app.urls")),
    path("api/analysis/", include("analysis_app.api_urls")),
    path("api/", include("runs_app.api_urls")),
    path("admin/", admin.site.urls),
]
