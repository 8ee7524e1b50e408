"""What makes the libraries people use work in the sandbox, installed for every task by the
component's entry module (no import needed in ``app.py``):

- ``install`` (before ``app`` is imported): the ``ssl`` stand-in when Python has no real one
  (``ssl_shim``), the refusals of sockets, processes and files outside the grants
  (``denials``), the asyncio event loop over wasi:io/poll (``aio``), ``hashlib``/``hmac``/
  CRC-32 computed by the host (``for_hashlib``);
- ``adapt_loaded`` (after): the wasi:http transports of the HTTP libraries the task
  imported: ``urllib3`` and so ``requests`` (``for_urllib3``), ``httpx`` (``for_httpx``),
  ``botocore`` and so ``boto3`` (``for_botocore``), and the modules they import lazily;
- ``at_run_time`` (the first task): reads the granted directories, and makes an import that
  fails because the module was not imported when the task was built say so.
"""

import importlib
import sys

from . import aio, denials, for_hashlib

# Modules the supported libraries import inside functions, on the first request: imported
# when the task is built, since the sandbox has no files to import from when it runs.
_LAZY_IMPORTS = {
    "requests": ("netrc", "encodings.idna", "http.cookiejar"),
    "urllib3": ("encodings.idna", "zlib", "gzip"),
    "httpx": ("encodings.idna", "zlib", "gzip"),
    "botocore": ("encodings.idna", "zlib", "gzip", "hmac", "xml.etree.ElementTree", "xml.etree.cElementTree"),
}


def install():
    """Prepares the interpreter before the task module is imported."""
    try:
        import ssl  # noqa: F401 (only to learn whether Python has one)
    except ImportError:
        from . import ssl_shim

        sys.modules["ssl"] = ssl_shim
    denials.install()
    aio.install()
    for_hashlib.install()


def adapt_loaded():
    """Puts the wasi:http transports into the HTTP libraries the task module imported."""
    if "urllib3" in sys.modules:
        from . import for_urllib3

        for_urllib3.install()
    if "httpx" in sys.modules:
        from . import for_httpx

        for_httpx.install()
    if "botocore" in sys.modules:
        from . import for_botocore

        for_botocore.install()
    for library, modules in _LAZY_IMPORTS.items():
        if library in sys.modules:
            for name in modules:
                try:
                    importlib.import_module(name)
                except ImportError:
                    pass


class _NotBundled:
    """The last finder on ``sys.meta_path`` when tasks run: an import no other finder could
    satisfy names the cause (the module was not imported when the component was built)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        raise ModuleNotFoundError(
            f"No module named {name!r} (bench: a task can import at run time only the modules "
            "imported when it was built; import it at the top of app.py)",
            name=name,
        )


_running = False


def at_run_time():
    """Called when a task runs: the first call reads the grants and adds the import note."""
    global _running  # noqa: PLW0603 (once per instance)
    if _running:
        return
    _running = True
    for_hashlib.start()
    denials.start_checking_files()
    sys.meta_path.append(_NotBundled)
