#!/usr/bin/env python3
"""Prints one line of JSON: the machine a figure is measured on (CPU model,
cores, kernel, load average). Used by bench_conditions (bench/lib.sh)."""
import json
import os
import platform


def conditions():
    cpu = platform.machine()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(), "load": load}


if __name__ == "__main__":
    print(json.dumps(conditions()))
