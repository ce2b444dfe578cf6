from django.urls import include, path

from frontend import clip_pages, views

urlpatterns = [
    path("", views.viewer_page, name="viewer"),
    path("model/vocabulary.json", views.model_vocabulary, name="model-vocabulary"),
    path("clips/", clip_pages.archive_page, name="archive"),
    path("clips/<int:clip_id>/", clip_pages.clip_page, name="clip"),
    path("mod/", include("yolive.moderation.desk.urls")),
]
