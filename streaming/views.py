"""GET /hls/<path>: the live playlist, its segments and the archive, for development and tests.

Production serves HLS_DIR with nginx (docs/operations.md) using the same types and cache rules. Types are
set here explicitly: Python's mimetypes maps .ts to Qt Linguist on Debian.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed

CONTENT_TYPES = {
    ".m3u8": "application/vnd.apple.mpegurl",
    ".ts": "video/mp2t",
    ".mp4": "video/mp4",
    ".jpg": "image/jpeg",  # an archived clip's poster
}
# A live playlist changes every segment (2 s): clients and caches may hold it for at most half of that.
PLAYLIST_CACHE = "public, max-age=1"
# Segment names are never reused, so a cached copy is always right.
SEGMENT_CACHE = "public, max-age=31536000, immutable"
POSTER_CACHE = "public, max-age=86400"  # a clip's poster never changes, but goes with its archive
CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
    "Access-Control-Allow-Headers": "Range",
    "Access-Control-Expose-Headers": "Content-Length",
}


def resolve(root: Path, path: str) -> Path:
    """The file `path` names under `root`, or Http404: no parent steps, hidden files or other types."""
    parts = PurePosixPath(path).parts
    if not parts or any(part in {"..", "/"} or part.startswith(".") for part in parts):
        raise Http404("no such stream file")
    if PurePosixPath(path).suffix not in CONTENT_TYPES or "\\" in path or "\x00" in path:
        raise Http404("no such stream file")
    candidate = root.joinpath(*parts).resolve()
    if not candidate.is_relative_to(root.resolve()) or not candidate.is_file():
        raise Http404("no such stream file")
    return candidate


def hls_file(request: HttpRequest, path: str) -> HttpResponse:
    if request.method == "OPTIONS":
        response = HttpResponse(status=204)
    elif request.method in {"GET", "HEAD"}:
        file = resolve(Path(settings.HLS_DIR), path)
        try:
            handle = file.open("rb")
        except FileNotFoundError:  # deleted by the live window between the check and the open
            raise Http404("no such stream file") from None
        response = FileResponse(handle, content_type=CONTENT_TYPES[file.suffix])
        caches = {".m3u8": PLAYLIST_CACHE, ".jpg": POSTER_CACHE}
        response["Cache-Control"] = caches.get(file.suffix, SEGMENT_CACHE)
    else:
        return HttpResponseNotAllowed(["GET", "HEAD", "OPTIONS"])
    for header, value in CORS.items():
        response[header] = value
    return response
