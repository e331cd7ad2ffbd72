"""Emits a realistic sequence of OpenLineage events through openlineage-python, as a
pipeline would: two runs of one job, their events out of order and one sent twice, the
second run failing with an error message. Prints the two run ids as JSON.

Usage: emit.py URL API_KEY JOB COMPRESSION   (COMPRESSION: gzip or none)
"""

import datetime
import json
import sys

from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.facet_v2 import error_message_run, schema_dataset, sql_job
from openlineage.client.transport.http import HttpConfig, HttpTransport
from openlineage.client.uuid import generate_new_uuid

url, key, job_name, compression = sys.argv[1:5]
config = {"url": url, "auth": {"type": "api_key", "apiKey": key}}
if compression != "none":
    config["compression"] = compression
client = OpenLineageClient(transport=HttpTransport(HttpConfig.from_dict(config)))

PRODUCER = "https://github.com/lore/conformance-tests/openlineage/emit.py"
T0 = datetime.datetime(2026, 11, 27, 10, 0, tzinfo=datetime.timezone.utc)


def at(seconds):
    return (T0 + datetime.timedelta(seconds=seconds)).isoformat()


job = Job(
    namespace="conformance",
    name=job_name,
    facets={"sql": sql_job.SQLJobFacet(query="INSERT INTO daily SELECT id, total FROM orders")},
)
inputs = [
    InputDataset(
        namespace="postgres://db:5432",
        name="shop.public.orders",
        facets={
            "schema": schema_dataset.SchemaDatasetFacet(
                fields=[
                    schema_dataset.SchemaDatasetFacetFields(name="id", type="INTEGER"),
                    schema_dataset.SchemaDatasetFacetFields(name="total", type="NUMERIC"),
                ]
            )
        },
    )
]
outputs = [OutputDataset(namespace="postgres://db:5432", name="shop.public.daily")]


def event(state, seconds, run_id, facets=None):
    return RunEvent(
        eventType=state,
        eventTime=at(seconds),
        run=Run(runId=run_id, facets=facets or {}),
        job=job,
        producer=PRODUCER,
        inputs=inputs,
        outputs=outputs,
    )


done = str(generate_new_uuid())
failed = str(generate_new_uuid())
start = event(RunState.START, 0, done)
for e in [
    event(RunState.COMPLETE, 60, done),
    start,
    event(RunState.RUNNING, 5, done),
    start,
    event(RunState.START, 100, failed),
    event(
        RunState.FAIL,
        160,
        failed,
        {
            "errorMessage": error_message_run.ErrorMessageRunFacet(
                message="division by zero", programmingLanguage="python"
            )
        },
    ),
]:
    client.emit(e)
print(json.dumps({"done": done, "failed": failed}))
