"""Django's admin autodiscovery looks here; the admin pages are part of the desk."""

from yolive.moderation.desk import admin  # noqa: F401
