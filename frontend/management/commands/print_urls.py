"""Print where people reach the channel: the viewer page, the stream, the moderation pages."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Print the viewer, stream and admin URLs."

    def handle(self, *args: Any, **options: Any) -> None:
        base = settings.PUBLIC_URL
        self.stdout.write(
            "\n"
            f"  Viewer page   {base}/\n"
            f"  HLS stream    {base}/hls/live.m3u8   (any HLS player)\n"
            f"  Moderation    {base}/mod/            (live panel, staff only)\n"
            f"  Admin         {base}/admin/\n"
            f"  Health        {base}/healthz\n"
            f"  Recent clips  {base}/clips/\n"
            f"  Metrics       {base}/metrics          (Prometheus: staff or METRICS_TOKEN)\n"
        )
