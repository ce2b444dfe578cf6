from django.urls import path

from yolive.moderation.desk import views

app_name = "mod"

urlpatterns = [
    path("", views.panel, name="panel"),
    path("prompts/<int:prompt_id>/approve", views.approve, name="approve"),
    path("prompts/<int:prompt_id>/reject", views.reject, name="reject"),
    path("restrictions", views.restrict, name="restrict"),
    path("restrictions/<int:restriction_id>/lift", views.lift, name="lift"),
    path("skip", views.skip, name="skip"),
    path("lockdown", views.lockdown, name="lockdown"),
    path("levels", views.set_level, name="set_level"),
    path("terms", views.add_term, name="add_term"),
    path("terms/<int:term_id>/delete", views.remove_term, name="remove_term"),
]
