"""/p/…: the respondents' pages (open: the token in the address is the respondent);
/panels/…: the analysts'."""

from django.urls import path

from . import views

app_name = "panels_app"

urlpatterns = [
    path("p/open/<str:open_token>/", views.join, name="join"),
    path("p/<str:token>/", views.respond, name="respond"),
    path("p/<str:token>/consent/", views.agree, name="agree"),
    path("p/<str:token>/profile/", views.profile, name="profile"),
    path("p/<str:token>/answer/<int:position>/", views.answer, name="answer"),
    path("p/<str:token>/done/", views.done, name="done"),
    path("panels/", views.panel_list, name="list"),
    path("panels/models-and-people/", views.models_and_people, name="models-and-people"),
    path("panels/<int:pk>/", views.panel_page, name="panel"),
]
