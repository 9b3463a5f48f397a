#!/usr/bin/env python3
"""Where a JVM's CPU time went, from JDK Flight Recorder files: the share of execution samples per thread group,
per area of code (inclusive: a sample counts for every area on its stack), and the hottest methods (self time).

    scripts/jfr-summary.py RECORDING[@CLAIMS] [RECORDING[@CLAIMS] ...] [top] [thread regex]
    scripts/jfr-summary.py --callers=java/util/Arrays.copyOf RECORDING [top] [thread regex]

With a thread regex (e.g. 'StreamThread|producer-network'), only samples of matching threads count: the pipeline
without start-up. Several recordings are shown side by side, one column each, rows ordered by the first; a
recording given with the number of claims its run processed (`run.jfr@300000`) also gets the samples per 1,000
claims, which compares the cost of each method between workloads of different sizes (a share cannot: the whole
grows with the work). With --callers, the paths that lead to one method (its samples' next frames up, to the first
frame outside the JDK's own packages): where a hot JDK or Kafka method is called from.

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


def qualified_name(frame):
    return frame["method"]["type"]["name"] + "." + frame["method"]["name"]


def caller_path(frames):
    """The frames below the sampled method, up to and including the first one outside java/ and jdk/."""
    path = []
    for frame in frames[1:]:
        path.append(qualified_name(frame).rsplit("/", 1)[-1] + ":" + str(frame.get("lineNumber", "?")))
        if not qualified_name(frame).startswith(("java/", "jdk/", "sun/")):
            break
    return " < ".join(path)


class Profile:
    """The samples of one recording, counted by thread group, area and method."""

    def __init__(self, argument, only, callers_of=None):
        self.path, _, claims = argument.partition("@")
        self.claims = int(claims) if claims else None
        raw = subprocess.run(["jfr", "print", "--json", "--stack-depth", "256", "--events", "jdk.ExecutionSample",
                              self.path], check=True, capture_output=True, text=True).stdout
        events = json.loads(raw)["recording"]["events"]
        if only:
            events = [event for event in events
                      if only.search(((event["values"].get("sampledThread") or {}).get("javaName")) or "")]
        self.total = len(events)
        self.counters = {"thread": collections.Counter(), "area (inclusive)": collections.Counter(),
                         "method (self)": collections.Counter()}
        self.callers = collections.Counter()
        for event in events:
            values = event["values"]
            thread = values.get("sampledThread") or {}
            self.counters["thread"][thread_group(thread.get("javaName") or thread.get("osName") or "?")] += 1
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
                self.counters["area (inclusive)"][area] += 1
            if frames:
                self.counters["method (self)"][qualified_name(frames[0])] += 1
                if callers_of and qualified_name(frames[0]) == callers_of:
                    self.callers[caller_path(frames)] += 1

    def header(self):
        columns = [f"share, {self.path.rsplit('/', 1)[-1]}"]
        if self.claims:
            columns.append("samples per 1,000 claims")
        return columns

    def cells(self, title, name):
        count = self.counters[title][name]
        cells = [f"{100.0 * count / self.total:.1f}%" if self.total else "-"]
        if self.claims:
            cells.append(f"{1000.0 * count / self.claims:.2f}")
        return cells


def main():
    callers_of = next((argument.split("=", 1)[1] for argument in sys.argv[1:]
                       if argument.startswith("--callers=")), None)
    arguments = [argument for argument in sys.argv[1:] if not argument.startswith("--callers=")]
    files = [argument for argument in arguments if argument.partition("@")[0].endswith(".jfr")]
    rest = [argument for argument in arguments if argument not in files]
    if not files:
        sys.exit(__doc__)
    top = int(rest[0]) if rest else 25
    only = re.compile(rest[1]) if len(rest) > 1 else None
    profiles = [Profile(argument, only, callers_of) for argument in files]
    if callers_of:
        for profile in profiles:
            count = sum(profile.callers.values())
            print(f"{count} samples in {callers_of} in {profile.path}, by caller\n")
            print("| callers | share of its samples |\n| --- | --- |")
            for path, calls in profile.callers.most_common(top):
                print(f"| {path} | {100.0 * calls / count:.1f}% |")
            print()
        return
    for profile in profiles:
        claims = f", {profile.claims:,} claims" if profile.claims else ""
        print(f"{profile.total} execution samples in {profile.path}{claims}")
    print()
    first = profiles[0]
    for title, limit in (("thread", 12), ("area (inclusive)", len(AREAS)), ("method (self)", top)):
        # the rows are the first recording's largest, then any another recording has among its largest
        names = [name for name, _ in first.counters[title].most_common(limit)]
        for other in profiles[1:]:
            names += [name for name, _ in other.counters[title].most_common(limit) if name not in names]
        columns = [column for profile in profiles for column in profile.header()]
        print(f"| {title} | " + " | ".join(columns) + " |")
        print("| --- " * (len(columns) + 1) + "|")
        for name in names:
            print(f"| {name} | " + " | ".join(cell for profile in profiles for cell in profile.cells(title, name)) + " |")
        print()


if __name__ == "__main__":
    main()
