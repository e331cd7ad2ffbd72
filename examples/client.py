#!/usr/bin/env python3
"""Lore example client: logs in, imports the sample model, reads it back.

Uses only the Python standard library.

    LORE_ADMIN_PASSWORD=admin cargo run -p lore-server -- serve      # in one terminal
    python3 examples/client.py --password admin                      # in another
"""

import argparse
import io
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def call(base, method, path, key=None, body=None, content_type="application/json", raw=False):
    headers = {"Content-Type": content_type}
    if key:
        headers["api-key"] = key
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            payload = response.read()
    except urllib.error.HTTPError as error:
        envelope = json.loads(error.read() or b"{}")
        sys.exit(f"{method} {path} failed ({error.code}): {envelope.get('error')}")
    return payload if raw else json.loads(payload)["result"]


def sample_archive():
    """Zips examples/sample-model/*.csv in memory."""
    folder = os.path.join(HERE, "sample-model")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(os.listdir(folder)):
            if name.endswith(".csv"):
                archive.write(os.path.join(folder, name), name)
    return buffer.getvalue()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:11480/MM/rest/v1")
    parser.add_argument("--user", default="Administrator")
    parser.add_argument("--password", default=os.environ.get("LORE_ADMIN_PASSWORD", ""))
    parser.add_argument("--model-name", default="Sales DB sample")
    args = parser.parse_args()

    key = call(args.url, "POST", "/auth/login", body={"user": args.user, "password": args.password})["token"]
    print("logged in")

    query = urllib.parse.urlencode({"modelName": args.model_name})
    summary = call(args.url, "POST", f"/repository/model/import?{query}", key, sample_archive(), "application/zip")
    print(f"imported {summary['objectCount']} objects into model {summary['modelId']} ({summary['modelName']})")

    models = call(args.url, "GET", "/configuration/listModels", key)
    print("models:", ", ".join(f"{m['name']} ({m['id']})" for m in models))

    path = urllib.parse.quote(f"/{args.model_name}/Sales DB/sales/customer", safe="")
    table = call(args.url, "GET", f"/entities/{path}", key)
    print(f"read back {table['objectType']['displayName']} '{table['name']}' ({table['id']}), labels {table['labels']}")
    context = call(args.url, "GET", f"/repository/getContext?objectId={table['id']}", key)
    print("context:", " / ".join(entity["name"] for entity in context))

    archive = call(args.url, "POST", f"/repository/model/export?modelId={summary['modelId']}", key, b"", raw=True)
    print(f"exported {len(archive)} bytes:", ", ".join(zipfile.ZipFile(io.BytesIO(archive)).namelist()))

    call(args.url, "POST", "/auth/logout", key, b"", "text/plain")
    print("logged out")


if __name__ == "__main__":
    main()
