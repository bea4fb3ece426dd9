#!/usr/bin/python3
"""Runs luabench with --metrics-listen on a free loopback port, scrapes it every quarter of a
second while the run goes on, and parses each scrape with the Prometheus client library's own
parser (which raises on anything malformed). Writes what it saw as JSON for
tests/e2e/metrics_spec.lua to check against the run's result file.

    metrics_scrape.py OUT.json LUABENCH ARG... ('{port}' in an argument becomes the port)
"""
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    out, cmd = sys.argv[1], sys.argv[2:]
    port = free_port()
    cmd = [a.replace("{port}", str(port)) for a in cmd]
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    scrapes, failures = [], []
    url = "http://127.0.0.1:%d/metrics" % port
    while run.poll() is None:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                ctype = r.headers.get("Content-Type")
                text = r.read().decode()
        except (urllib.error.URLError, ConnectionError, socket.timeout):
            time.sleep(0.05)
            continue
        try:
            families = {}
            for f in text_string_to_metric_families(text):
                families[f.name] = {
                    "type": f.type,
                    "help": f.documentation,
                    "samples": [[s.name, s.labels, s.value] for s in f.samples],
                }
            scrapes.append({"content_type": ctype, "families": families})
        except ValueError as e:
            failures.append("%s in:\n%s" % (e, text))
        time.sleep(0.25)
    stdout, stderr = run.communicate()
    missing = None
    try:
        urllib.request.urlopen("http://127.0.0.1:%d/nothing" % port, timeout=1)
    except urllib.error.HTTPError as e:
        missing = e.code
    except (urllib.error.URLError, ConnectionError):
        missing = "closed"
    with open(out, "w") as f:
        json.dump({"rc": run.returncode, "stdout": stdout.decode(), "stderr": stderr.decode(), "port": port,
                   "scrapes": scrapes, "failures": failures, "after_end": missing}, f)


if __name__ == "__main__":
    main()
