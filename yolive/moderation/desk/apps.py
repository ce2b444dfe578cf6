from django.contrib.admin.apps import AdminConfig


class AuditedAdminConfig(AdminConfig):
    """Django's admin app on the desk's audited site (INSTALLED_APPS names this instead of
    django.contrib.admin). A string, so the site and the models it needs load after the app registry."""

    default_site = "yolive.moderation.desk.auditing.AuditedAdminSite"
