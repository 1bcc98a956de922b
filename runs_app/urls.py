from django.urls import path

from . import views

urlpatterns = [
    path("", views.run_list, name="run-list"),
    path("models/", views.model_list, name="run-models"),
    path("models/<int:pk>/connection/", views.model_connection, name="run-model-connection"),
    path("models/<int:pk>/connection/test/", views.model_connection_test, name="run-model-connection-test"),
    path("models/<int:pk>/connection.json", views.model_connection_state, name="run-model-connection-json"),
    path("models/<int:pk>/connection/strategy/", views.model_use_found_strategy, name="run-model-use-strategy"),
    path("launch/", views.launch, name="run-launch"),
    path("<int:pk>/", views.run_detail, name="run-detail"),
    path("<int:pk>/progress.json", views.run_progress, name="run-progress"),
    path("<int:pk>/cancel/", views.cancel, name="run-cancel"),
    path("<int:pk>/resume/", views.resume, name="run-resume"),
]
