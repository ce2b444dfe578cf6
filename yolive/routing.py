from django.urls import path

from yolive.moderation.desk.consumers import ModConsumer
from yolive.voting.consumers import LiveConsumer

websocket_urlpatterns = [
    path("ws/live/", LiveConsumer.as_asgi()),
    path("ws/mod/", ModConsumer.as_asgi()),
]
