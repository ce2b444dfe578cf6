"""ASGI entry point: HTTP through Django; WebSockets through Channels with sessions, auth, origin checks."""

from __future__ import annotations

import os

from yolive.startup import exit_on_bad_settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")
exit_on_bad_settings()

from channels.auth import AuthMiddlewareStack  # noqa: E402 - Django must be set up first
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.core.asgi import get_asgi_application  # noqa: E402

django_application = get_asgi_application()

from yolive.routing import websocket_urlpatterns  # noqa: E402 - imports models
from yolive.voting.wire import ExposeWire  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_application,
        "websocket": ExposeWire(
            AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)
