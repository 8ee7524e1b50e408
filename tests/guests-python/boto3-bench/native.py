"""The boto3 benchmark under CPython: ``python3 native.py URL SIZE TIMES`` prints one line
``upload-ms download-ms`` per transfer (see workload.py and scripts/boto3-bench.sh)."""

import sys

from workload import client, transfer

url, size, times = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s3 = client(url)
for _ in range(times):
    upload_s, download_s = transfer(s3, size)
    print(f"{upload_s * 1000:.3f} {download_s * 1000:.3f}")
