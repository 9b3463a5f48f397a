#!/usr/bin/env python3
"""Where the applications' CPU went in a throughput run profiled with perf, native code included.

JDK Flight Recorder samples Java code only; RocksDB, the C++ runtime and the kernel run outside it. perf samples all
of it. Record a run like this (docs/benchmarks.md, "Where a claim's time goes, native code included"):

    perf record -a -F 199 -o /tmp/run.perf -- env BENCH_OPTS="-Dvalueguard.bench.perf=true ..." \\
        scripts/benchmark.sh 2000000 1000000 500000
    scripts/perf-summary.py /tmp/run.perf target/benchmark/<time>

With -Dvalueguard.bench.perf=true each application writes its compiled methods' symbols for perf when it exits
(/tmp/perf-<pid>.map) and the benchmark names each application's threads in <pid>.threads beside the report. RocksDB's
library is unpacked into /tmp under a new name by each JVM and deleted when it exits; this script puts the one from
the rocksdbjni jar in the local Maven repository back at those names while perf reads the samples, then removes them.

Prints, for each setting's stream threads (the plain table's, and each stage's of ValueGuard), the microseconds of
CPU per claim by where they went, averaged over the setting's runs. With --threads after the arguments it prints
instead each application's CPU per claim by kind of thread, every thread of the process (the collector's, the
compiler's, RocksDB's own, whose names perf gives), to see where two settings' CPU per claim differ.
"""
import collections
import glob
import os
import re
import subprocess
import sys
import zipfile

LINE = re.compile(r'^\s*(.+?)\s+(\d+)/(\d+)\s+([0-9a-f]+)\s+(.*)\((.*)\)\s*$')
ROCKSDB = re.compile(r'/tmp/librocksdbjni[0-9]*\.so')


def category(symbol, library):
    if 'perf-' in library:
        return 'Java (compiled and interpreted)'
    if 'librocksdbjni' in library:
        if 'SkipList' in symbol or 'MemTable' in symbol:
            return 'RocksDB: memtables'
        if 'lru_cache' in symbol:
            return 'RocksDB: block cache'
        return 'RocksDB: files, filters, writes, JNI'
    if ('libgcc_s' in library or 'personality' in symbol or '_dl_find_object' in symbol or 'cxa_' in symbol
            or 'Unwind' in symbol):
        return 'C++ exceptions (RocksDB\'s "not found")'
    if '__tls_get_addr' in symbol:
        return 'thread-local lookups'
    if re.search(r'malloc|free|operator new|operator delete', symbol):
        return 'malloc and free'
    if 'kernel' in library:
        return 'kernel'
    if 'libjvm' in library:
        return 'JVM runtime'
    return 'other native code'


def rocksdb_library():
    jars = sorted(glob.glob(os.path.expanduser('~/.m2/repository/org/rocksdb/rocksdbjni/*/rocksdbjni-*.jar')))
    jars = [jar for jar in jars if re.search(r'rocksdbjni-[0-9.]+\.jar$', jar)]
    if not jars:
        return None
    with zipfile.ZipFile(jars[-1]) as jar:
        return jar.read('librocksdbjni-linux64.so')


def samples(perf_data):
    # -G: one line per sample, also from a recording with call graphs (perf record -g)
    command = ['perf', 'script', '-i', perf_data, '-G', '-F', 'comm,pid,tid,ip,sym,dso']
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    by_thread = '--threads' in sys.argv
    arguments = [argument for argument in sys.argv[1:] if argument != '--threads']
    perf_data, run_directory = arguments[0], arguments[1]
    hertz = int(arguments[2]) if len(arguments) > 2 else 199
    with open(os.path.join(run_directory, 'report.md')) as report:
        claims = int(report.readline().split(' claims')[0].replace(',', ''))
    threads = {}
    setting_of = {}
    runs = collections.Counter()
    for path in glob.glob(os.path.join(run_directory, '*.threads')):
        pid = os.path.basename(path).split('.')[0]
        with open(path) as names:
            setting = names.readline().rstrip('\n').split('\t')[1]
            if setting.startswith('warm-up'):
                continue
            setting_of[pid] = setting
            runs[setting] += 1
            for line in names:
                thread, kind = line.rstrip('\n').split('\t')
                threads[thread] = kind
    if not setting_of:
        sys.exit('No *.threads in ' + run_directory + ': run the benchmark with -Dvalueguard.bench.perf=true')

    placed = []
    output = samples(perf_data)
    library = None
    for path in sorted(set(ROCKSDB.findall(output))):
        if not os.path.exists(path):
            library = library or rocksdb_library()
            if library:
                with open(path, 'wb') as copy:
                    copy.write(library)
                placed.append(path)
    try:
        if placed:
            output = samples(perf_data)
    finally:
        for path in placed:
            os.remove(path)

    spent = collections.defaultdict(collections.Counter)
    for line in output.splitlines():
        sample = LINE.match(line)
        if not sample or sample.group(2) not in setting_of:
            continue
        if by_thread:
            # threads the JVM does not know of (RocksDB's flushes and compactions) by the name perf gives them
            kind = threads.get(sample.group(3)) or 'native: ' + re.sub(r'[0-9]+$', '', sample.group(1))
            spent[setting_of[sample.group(2)]][kind] += 1
            continue
        kind = threads.get(sample.group(3), 'other')
        if not kind.startswith('StreamThread'):
            continue
        column = setting_of[sample.group(2)] + ': ' + kind
        spent[column][category(sample.group(5).strip(), sample.group(6))] += 1

    columns = sorted(spent)
    categories = sorted({c for column in columns for c in spent[column]},
                        key=lambda c: -sum(spent[column][c] for column in columns))
    if by_thread:
        # the JVM's idle housekeeping threads would fill the table with zeros
        everything = sum(sum(spent[column].values()) for column in columns)
        categories = [c for c in categories if sum(spent[column][c] for column in columns) >= everything / 500]

    def micros(column, count):
        return count / hertz / (claims * runs[column.split(': ')[0]]) * 1e6

    if by_thread:
        print(f'{claims:,} claims a run; each application\'s CPU per claim by kind of thread, µs (share of the '
              f'application), averaged over each setting\'s runs\n')
    else:
        print(f'{claims:,} claims a run; stream threads\' CPU per claim, µs (share of the thread), '
              f'averaged over each setting\'s runs\n')
    print('| | ' + ' | '.join(columns) + ' |')
    print('| --- |' + ' --- |' * len(columns))
    for c in categories:
        cells = [f'{micros(col, spent[col][c]):.1f} ({100 * spent[col][c] / sum(spent[col].values()):.0f}%)'
                 for col in columns]
        print(f'| {c} | ' + ' | '.join(cells) + ' |')
    print('| total | ' + ' | '.join(f'{micros(col, sum(spent[col].values())):.1f}' for col in columns) + ' |')


if __name__ == '__main__':
    main()
