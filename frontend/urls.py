from django.urls import include, path

from frontend import views

urlpatterns = [
    path("", views.viewer_page, name="viewer"),
    path("mod/", include("yolive.moderation.urls")),
]
