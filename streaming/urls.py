from django.urls import path

from streaming.views import hls_file

app_name = "streaming"
urlpatterns = [
    path("<path:path>", hls_file, name="file"),
]
