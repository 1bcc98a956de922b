from django.urls import path

from . import views

urlpatterns = [
    path("", views.overview, name="encoding-overview"),
    path("code/", views.workspace, name="encoding-workspace"),
    path("adjudicate/", views.workspace, {"queue": "adjudication"}, name="encoding-adjudicate"),
    path("next.json", views.next_item, name="encoding-next"),
    path("status.json", views.queue_status, name="encoding-status"),
    path("tasks/<int:pk>/code.json", views.code_item, name="encoding-code"),
    path("tasks/<int:pk>/skip.json", views.skip_item, name="encoding-skip"),
    path("undo.json", views.undo, name="encoding-undo"),
    path("agreement/", views.agreement, name="encoding-agreement"),
    path("audit/", views.audit, name="encoding-audit"),
    path("judging/", views.request_judging, name="encoding-judging"),
]
