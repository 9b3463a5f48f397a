#!/usr/bin/env python3
"""Where a JVM's CPU time went, from a JDK Flight Recorder file: the share of execution samples per thread group,
per area of code (inclusive: a sample counts for every area on its stack), and the hottest methods (self time).

    scripts/jfr-summary.py target/benchmark/<time>/<application>.jfr [top] [thread regex]

With a thread regex (e.g. 'StreamThread|producer-network'), only samples of matching threads count: the pipeline
without start-up.

Used for docs/benchmarks.md; needs the JDK's `jfr` tool on the PATH.
"""
import collections
import json
import re
import subprocess
import sys

# An area is the first of these prefixes found on a stack frame's class, checked in order.
AREAS = [
    ("ValueGuard: serdes and codecs", "io.valueguard.codec."),
    ("ValueGuard: stage logic and processors", "io.valueguard."),
    ("Streams: polling and fetching records", "org.apache.kafka.streams.processor.internals.StreamThread.pollRequests"),
    ("Streams: committing (flush, transaction, offsets)", "org.apache.kafka.streams.processor.internals.TaskExecutor.commit"),
    ("Streams: sending records (serialize, partition, append)", "org.apache.kafka.streams.processor.internals.RecordCollectorImpl.send"),
    ("RocksDB (JNI and Kafka's store layers)", "org.rocksdb."),
    ("state stores (caching, changelog, metered)", "org.apache.kafka.streams.state."),
    ("record collector and sinks", "org.apache.kafka.streams.processor.internals.RecordCollector"),
    ("Streams metrics", "org.apache.kafka.streams.processor.internals.metrics."),
    ("Kafka client metrics and sensors", "org.apache.kafka.common.metrics."),
    ("producer", "org.apache.kafka.clients.producer."),
    ("consumer", "org.apache.kafka.clients.consumer."),
    ("network and protocol", "org.apache.kafka.common.network."),
    ("record batches and compression", "org.apache.kafka.common.record."),
    ("serialization", "org.apache.kafka.common.serialization."),
    ("logging", "ch.qos.logback."),
]


def thread_group(name):
    name = re.sub(r"-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "", name)
    name = re.sub(r"-\d+$", "-N", name)
    return re.sub(r"bench-[a-z]+-[0-9a-f]{8}", "<app>", name)


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    only = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None
    raw = subprocess.run(["jfr", "print", "--json", "--stack-depth", "256", "--events", "jdk.ExecutionSample", path],
                         check=True, capture_output=True, text=True).stdout
    events = json.loads(raw)["recording"]["events"]
    if only:
        events = [event for event in events
                  if only.search(((event["values"].get("sampledThread") or {}).get("javaName")) or "")]
    threads = collections.Counter()
    areas = collections.Counter()
    methods = collections.Counter()
    for event in events:
        values = event["values"]
        thread = values.get("sampledThread") or {}
        threads[thread_group(thread.get("javaName") or thread.get("osName") or "?")] += 1
        frames = (values.get("stackTrace") or {}).get("frames") or []
        seen = set()
        for frame in frames:
            klass = frame["method"]["type"]["name"]
            qualified = klass.replace("/", ".") + "." + frame["method"]["name"]
            for area, prefix in AREAS:
                if qualified.startswith(prefix):
                    seen.add(area)
                    if not prefix.endswith("."):
                        continue
                    break
        for area in seen:
            areas[area] += 1
        if frames:
            method = frames[0]["method"]
            methods[method["type"]["name"] + "." + method["name"]] += 1
    total = len(events)
    print(f"{total} execution samples in {path}\n")
    for title, counter, limit in (("thread", threads, 12), ("area (inclusive)", areas, len(AREAS)),
                                  ("method (self)", methods, top)):
        print(f"| {title} | share |\n| --- | --- |")
        for name, count in counter.most_common(limit):
            print(f"| {name} | {100.0 * count / total:.1f}% |")
        print()


if __name__ == "__main__":
    main()
