"""The Django admin: every admin class the project defines is in use."""

import re
import sys

from django.apps import apps
from django.contrib import admin


def registered_admins() -> list[admin.ModelAdmin]:
    return [admin.site.get_model_admin(m) for m in apps.get_models() if admin.site.is_registered(m)]


def test_every_admin_class_the_project_defines_is_the_one_its_model_is_shown_with():
    registered = registered_admins()
    admin_modules = re.compile(r"yolive(\.\w+)*\.admin")
    modules = [m for name, m in list(sys.modules.items()) if admin_modules.fullmatch(name)]
    defined = [
        cls
        for module in modules
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, admin.ModelAdmin) and cls.__module__ == module.__name__
    ]
    assert defined, "the admin modules were not loaded"
    assert [cls for cls in defined if not any(isinstance(a, cls) for a in registered)] == []
