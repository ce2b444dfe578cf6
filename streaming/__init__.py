"""The broadcaster: one never-ending HLS stream of the clips that won, with filler between them.

Each module does one job; imports run down this list, never back up it:

- `management.commands.broadcast`: `manage.py broadcast`, a Broadcaster from settings until a signal.
- `broadcaster`: the feeder loop that ties the parts below together, and recovers when ffmpeg dies.
- `keeper`: housekeeping beside the feeder: heartbeat, archive retention, spent frames, the stall watchdog.
- `feed`: the running ffmpeg and the slots fed to it but not yet finished; restarts keep its numbering.
- `publisher`: each finished segment into the live playlist and the archive, and its announcements due.
- `pacer`: the clock: frames at wall-clock pace, and each segment's PROGRAM-DATE-TIME.
- `schedule`: what airs when, a slot (one segment) at a time: ready clips in order, skips, replays.
- `filler`: the slate that airs when no clip is ready.
- `airing`: the database side, off the feeder's thread: the clips it reads, the status changes it announces.
- `encoder`: one ffmpeg process; `command`: its argument list, built by pure functions.
- `archive`: each aired clip kept for replay; `playlist`: the live and VOD playlists under RFC 8216.
- `picture`: clip frames, captions and the slate's drawing.
- `urls`, `views`: /hls/ for development and tests.
"""
