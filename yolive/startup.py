"""A bad setting stops every process with one line naming the variable, not a traceback."""

from __future__ import annotations

import sys

from django.core.exceptions import ImproperlyConfigured


def exit_on_bad_settings() -> None:
    from django.conf import settings

    try:
        settings.SECRET_KEY  # noqa: B018 - touching settings imports and validates them
    except ImproperlyConfigured as exc:
        sys.stderr.write(f"yolive: bad setting: {exc}\n")
        raise SystemExit(2) from None
