#!/usr/bin/env python3
"""Writes trace.jsonl: the issue's 200-key outage as `quell replay --messages` reads it.

200 tenants of one condition ("model-answer") fail in the same poll at 09:00, still fail at 09:11
(past the 10m cooldown), then are healthy in three polls (09:12, 09:13, 09:14) and in one more (09:15), so that a
grouped resolve due half a minute after 09:14 falls inside the trace. With the
config beside it (cooldown 10m, healthy_polls_to_close 3) and grouping off, every key gets an
open, a renotify and a resolve: 600 messages.

Run from this directory: python3 generate.py > trace.jsonl
"""

TENANTS = [f"t{i:03d}" for i in range(1, 201)]
POLLS = [("09:00", "true"), ("09:11", "true"), ("09:12", "false"), ("09:13", "false"),
         ("09:14", "false"), ("09:15", "false")]

for clock, unhealthy in POLLS:
    # The error group's own count, as a source states it while it fails.
    count = ',"upstream_count":12' if unhealthy == "true" else ""
    for tenant in TENANTS:
        print(f'{{"at":"2026-12-01T{clock}:00Z","key":"{tenant}:model-answer",'
              f'"unhealthy":{unhealthy},"condition":"model-answer",'
              f'"labels":{{"tenant":"{tenant}"}}{count}}}')
