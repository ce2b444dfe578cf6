from django.contrib import admin
from django.urls import include, path

from yolive.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("hls/", include("streaming.urls")),
    path("", include("frontend.urls")),
]
