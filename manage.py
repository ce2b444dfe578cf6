#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yolive.settings")
    from django.core.management import execute_from_command_line

    from yolive.startup import exit_on_bad_settings

    exit_on_bad_settings()
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
