"""botocore (and so boto3) in the sandbox: its connection pools send through the wasi:http
connections of ``for_urllib3``, and what its loader reads from its data files (service
models, endpoints, partitions) is remembered for the whole process, so a client created when
a task runs finds the models a client created at the top of ``app.py`` loaded when the task
was built (the sandbox has no files then)::

    import boto3

    boto3.client("s3", region_name="us-east-1")   # at the top: loads the S3 models

    @task(CONFIG)
    def run(ctx):
        s3 = boto3.client("s3", endpoint_url=ctx.participant["endpoint"], region_name="us-east-1")
"""

import functools

import botocore.awsrequest
import botocore.loaders

from .for_urllib3 import WasiHTTPConnection, WasiHTTPSConnection

# The loader methods whose results come from the data files, each cached per loader by
# botocore; remembered here for every loader of the process.
_LOADED = (
    "list_available_services",
    "determine_latest_version",
    "list_api_versions",
    "load_service_model",
    "load_data_with_path",
)
_remembered = {}


def _remembering(name, method):
    @functools.wraps(method)
    def load(self, *args, **kwargs):
        key = (name, args, tuple(sorted(kwargs.items())))
        if key not in _remembered:
            _remembered[key] = method(self, *args, **kwargs)
        return _remembered[key]

    return load


def install():
    """Puts the wasi:http connections into botocore's pools and makes its loaders share
    what they loaded."""
    botocore.awsrequest.AWSHTTPConnectionPool.ConnectionCls = WasiHTTPConnection
    botocore.awsrequest.AWSHTTPSConnectionPool.ConnectionCls = WasiHTTPSConnection
    for name in _LOADED:
        setattr(botocore.loaders.Loader, name, _remembering(name, getattr(botocore.loaders.Loader, name)))
