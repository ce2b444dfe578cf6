from django.contrib import admin
from django.urls import include, path

from yolive.plumbing.health import healthz
from yolive.plumbing.metrics.scrape import metrics

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("admin/", admin.site.urls),
    path("hls/", include("streaming.urls")),
    path("", include("frontend.urls")),
]
