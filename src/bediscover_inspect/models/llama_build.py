"""A portable build of llama-cpp-python, the embedded model's runtime, and a check of what a build may execute.

llama-cpp-python is published on PyPI as source only; ``pip install`` compiles it with llama.cpp's default
``GGML_NATIVE=ON`` (``-march=native``), so the library executes whatever the *build* machine has (AVX-512, AMX on
recent Xeons), and pip then caches that wheel and reuses it on any other CPU. A library with AMX kernels dies with
``SIGILL`` on a machine whose kernel does not grant AMX, as soon as a prompt is long enough to reach them.

This module compiles it instead with ``-DGGML_NATIVE=OFF`` and explicit instruction-set switches for one named
level (:data:`LEVELS`), never AVX-512, AVX-VNNI or AMX, and never the CPU-variant plugins (llama-cpp-python 0.3.x
does not load ggml's dynamic backends). The wheel is built with ``--no-binary`` and ``--no-cache-dir``, so pip's
wheel cache is neither read nor written, and is kept in the suite's own cache under a key made of the version, the
level, the CMake switches and the Python ABI (:func:`wheel_dir`): a re-install finds it there, and a wheel under one
key is the same build whichever machine made it. Before a wheel is kept, its shared libraries are disassembled
(:func:`forbidden_instructions`, ``objdump -d``) and refused if they hold an AMX or AVX-512 instruction.

Command line (run by ``make install``; ``make rebuild-llama`` passes ``--rebuild``)::

    python -m bediscover_inspect.models.llama_build [--cpu auto|x86-64-v3|x86-64] [--rebuild]
    python -m bediscover_inspect.models.llama_build --check FILE.so ...   # or no FILE: the installed library
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

VERSION = "0.3.36"
"""The llama-cpp-python release the suite builds (pyproject's range ``>=0.3.16,<0.4`` admits it)."""

_OFF = ["GGML_AVX_VNNI", "GGML_AVX512", "GGML_AVX512_VBMI", "GGML_AVX512_VNNI", "GGML_AVX512_BF16"]
_OFF += ["GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16"]
_X86 = ["GGML_SSE42", "GGML_AVX", "GGML_AVX2", "GGML_FMA", "GGML_F16C", "GGML_BMI2"]

LEVELS: dict[str, list[str]] = {
    "x86-64-v3": _X86,
    "x86-64": [],
}
"""Instruction-set levels: the ggml switches turned on (all others off). ``x86-64-v3`` is the psABI level of
Intel Haswell (2013) and AMD Excavator/Zen and later (SSE4.2, AVX, AVX2, FMA, F16C, BMI2): every current x86-64
server and laptop. ``x86-64`` is the baseline every x86-64 CPU runs (SSE2), for older CPUs, several times slower."""

REQUIRED_FLAGS = {"x86-64-v3": {"sse4_2", "avx", "avx2", "fma", "f16c", "bmi2"}, "x86-64": set()}
"""``/proc/cpuinfo`` flags a CPU needs for each level (``auto`` picks the highest it has)."""

AMX = re.compile(r"ldtilecfg|sttilecfg|tileloaddt?1?|tilestored|tilerelease|tilezero|tdp\w+|tcmm\w+")
"""AMX mnemonics (Intel SDM vol. 2, "AMX instructions")."""

AVX512_MNEMONIC = re.compile(
    r"vpternlog[dq]|vperm[it]2\w+|vmovdq[au](8|16|32|64)|vpcompress\w|vpexpand\w|vcompressp\w|vexpandp\w|"
    r"vscalef\w+|vrndscale\w+|vgetexp\w+|vgetmant\w+|vfixupimm\w+|vrangep\w|vreducep\w|vfpclass\w+|"
    r"vpmov(s|us)?(qb|qw|qd|db|dw|wb)|vpmovm2\w|vpmov\w2m|vpconflict\w|vplzcnt\w|vpdpbusds?|vpdpwssds?|"
    r"vdpbf16ps|vcvtne2ps2bf16|vpermb|vpermw|vpmultishiftqb|vpopcnt[bwdq]|vpshl?dv?[wdq]|vpshrdv?[wdq]|"
    r"vpcmpu?[bwdq]|vpabsq|vp(max|min)[su]q|vpsraq|vpmullq|valign[dq]|vp?blendm\w+|vrcp14\w+|vrsqrt14\w+|"
    r"v(extract|insert|broadcast)[if](32x4|64x2|32x8|64x4|32x2)|vshuf[if](32x4|64x2)|"
    r"vpsllvw|vpsrlvw|vpsravw|vptestn?m\w|k(mov|and|andn|or|xor|xnor|not|shift\w+|test|ortest|add|unpck)\w*"
)
"""Mnemonics that exist only as AVX-512 (EVEX) or VNNI instructions (Intel SDM vol. 2)."""

AVX512_OPERAND = re.compile(r"%zmm\d|%k[0-7]\b|%[xy]mm(1[6-9]|2\d|3[01])\b|\{(1to\d+|z|[a-z-]*sae)\}")
"""AVX-512 operands: a zmm or mask register, xmm/ymm16-31, an embedded broadcast, zeroing or rounding."""

_PREFIXES = {"lock", "rep", "repz", "repnz", "repe", "repne", "notrack", "bnd", "data16", "addr32", "cs", "ds"}


def classify(insn: str) -> tuple[str, str] | None:
    """``("AMX"|"AVX-512", mnemonic)`` for one instruction as ``objdump -d`` prints it (AT&T), else ``None``."""
    tokens = insn.split()
    evex = "{evex}" in tokens
    while tokens and (tokens[0] in _PREFIXES or re.fullmatch(r"\{\w+\}", tokens[0])):
        tokens.pop(0)
    if not tokens:
        return None
    mnemonic = tokens[0]
    operands = re.sub(r"<[^>]*>", "", " ".join(tokens[1:]))
    if AMX.fullmatch(mnemonic) or "%tmm" in operands:
        return "AMX", mnemonic
    if AVX512_MNEMONIC.fullmatch(mnemonic) or AVX512_OPERAND.search(operands) or evex:
        return "AVX-512", mnemonic
    return None


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str] | None:
    """The ``flags`` of the first CPU in ``cpuinfo``, or ``None`` where the file is absent (not Linux)."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return None


def choose_level(requested: str, flags: set[str] | None, machine: str | None = None) -> str:
    """The level to build: ``requested`` unless it is ``auto``, then the highest level whose flags ``flags`` has.

    Not an x86-64 machine: ``generic`` (``-DGGML_NATIVE=OFF`` only). ``flags`` ``None`` (no ``/proc/cpuinfo``):
    ``x86-64-v3``. Raises ``ValueError`` for an unknown level.
    """
    machine = (machine or platform.machine()).lower()
    if machine not in ("x86_64", "amd64"):
        return "generic"
    if requested != "auto":
        if requested not in LEVELS:
            raise ValueError(f"--cpu {requested!r}: expected auto or one of {', '.join(LEVELS)}")
        return requested
    if flags is None:
        return "x86-64-v3"
    return next(level for level in LEVELS if REQUIRED_FLAGS[level] <= flags)


def cmake_args(level: str) -> list[str]:
    """The CMake switches for ``level`` (``generic``: only ``-DGGML_NATIVE=OFF``); llava/mtmd is not built."""
    args = ["-DGGML_NATIVE=OFF", "-DLLAVA_BUILD=OFF"]
    if level == "generic":
        return args
    on = LEVELS[level]
    args += [f"-D{name}={'ON' if name in on else 'OFF'}" for name in _X86]
    return args + [f"-D{name}=OFF" for name in _OFF]


def cache_key(level: str) -> str:
    """``<version>-<level>-<12 hex>``: the hex digest covers the version, level, CMake switches, Python ABI and
    platform, so a wheel built with other switches or for another interpreter is never picked up."""
    material = {
        "version": VERSION,
        "level": level,
        "cmake": cmake_args(level),
        "abi": sys.implementation.cache_tag,
        "platform": sysconfig.get_platform(),
    }
    digest = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:12]
    return f"{VERSION}-{level}-{digest}"


def wheel_dir(level: str) -> Path:
    """Where the wheel for ``level`` is kept: ``$BEDISCOVER_LLAMA_WHEELS`` or the user cache
    (``~/.cache/bediscover-inspect/llama-cpp-python`` on Linux), then :func:`cache_key`."""
    root = os.environ.get("BEDISCOVER_LLAMA_WHEELS")
    if not root:
        from platformdirs import user_cache_dir

        root = str(Path(user_cache_dir("bediscover-inspect")) / "llama-cpp-python")
    return Path(root) / cache_key(level)


def forbidden_instructions(paths: Iterable[Path]) -> Counter[str]:
    """Count the AMX and AVX-512 instructions in the machine code of ``paths`` (``objdump -d``; identical files once).

    Returns:
        ``Counter`` of ``"<file>: AMX|AVX-512: <mnemonic>"`` -> occurrences; empty when none.

    Raises:
        RuntimeError: ``objdump`` is missing (it comes with binutils, beside gcc) or fails on a file.
    """
    objdump = shutil.which("objdump")
    if objdump is None:
        raise RuntimeError("objdump not found: install binutils (it comes with gcc) to check the built library")
    found: Counter[str] = Counter()
    seen: set[str] = set()
    for path in paths:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest in seen:  # the wheel holds each library under several names (libx.so, libx.so.0, …)
            continue
        seen.add(digest)
        proc = subprocess.Popen(
            [objdump, "-d", "--no-show-raw-insn", str(path)], stdout=subprocess.PIPE, text=True, errors="replace"
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            fields = line.split("\t")
            if len(fields) < 2:
                continue
            hit = classify(fields[-1].strip())
            if hit:
                found[f"{path.name}: {hit[0]}: {hit[1]}"] += 1
        if proc.wait() != 0:
            raise RuntimeError(f"objdump -d {path} failed (exit {proc.returncode})")
    return found


def installed_libraries() -> list[Path]:
    """The shared libraries of the installed llama-cpp-python (``llama_cpp/lib/*.so*``, ``*.dylib``, ``*.dll``).

    Raises:
        RuntimeError: llama-cpp-python is not installed.
    """
    try:
        files = metadata.distribution("llama-cpp-python").files or []
    except metadata.PackageNotFoundError as ex:
        raise RuntimeError("llama-cpp-python is not installed: run `make install`") from ex
    libs = [Path(str(f.locate())) for f in files if "/lib/" in f"/{f}" and re.search(r"\.(so|dylib|dll)", f.name)]
    return sorted(p for p in libs if p.is_file())


def _installed_from() -> str | None:
    """The ``file://`` URL the installed llama-cpp-python came from (PEP 610 ``direct_url.json``), if any."""
    try:
        text = metadata.distribution("llama-cpp-python").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    return json.loads(text).get("url") if text else None


def build_wheel(level: str, dest: Path) -> Path:
    """Compile llama-cpp-python :data:`VERSION` for ``level`` into ``dest`` and check its libraries.

    ``pip wheel --no-binary llama-cpp-python --no-cache-dir``: pip's wheel cache is neither read nor written.

    Raises:
        RuntimeError: the build failed, or a library holds AMX/AVX-512 instructions (the wheel is then not kept).
    """
    env = os.environ | {"CMAKE_ARGS": " ".join(cmake_args(level)), "FORCE_CMAKE": "1"}
    with tempfile.TemporaryDirectory(prefix="llama-wheel-") as tmp:
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-cache-dir", "--no-binary", "llama-cpp-python"]
        cmd += ["-w", tmp, f"llama-cpp-python=={VERSION}"]
        if subprocess.run(cmd, env=env).returncode != 0:
            raise RuntimeError(f"compiling llama-cpp-python {VERSION} failed (see pip's output above)")
        (wheel,) = Path(tmp).glob("llama_cpp_python-*.whl")
        with zipfile.ZipFile(wheel) as archive:
            names = [n for n in archive.namelist() if re.search(r"(^|/)lib/[^/]+\.(so|dylib|dll)", n)]
            archive.extractall(Path(tmp) / "x", names)
        if level != "generic" and (bad := forbidden_instructions(Path(tmp) / "x" / n for n in names)):
            raise RuntimeError(f"the {level} build holds AMX/AVX-512 instructions, not kept: {dict(bad)}")
        dest.mkdir(parents=True, exist_ok=True)
        return Path(shutil.move(str(wheel), dest / wheel.name))


def ensure_installed(requested: str = "auto", rebuild: bool = False) -> str:
    """Install the portable llama-cpp-python for ``requested`` into this interpreter's environment.

    Reuses the kept wheel (:func:`wheel_dir`) unless ``rebuild``; reinstalls only when the installed copy did
    not come from that very wheel. Returns a one-line summary. Raises ``RuntimeError`` as :func:`build_wheel`,
    or when pip cannot install the wheel.
    """
    level = choose_level(requested, cpu_flags())
    where = wheel_dir(level)
    if rebuild and where.exists():
        shutil.rmtree(where)
    wheels = sorted(where.glob("llama_cpp_python-*.whl")) if where.is_dir() else []
    if wheels:
        wheel, how = wheels[0], "kept wheel"
    else:
        print(
            f"compiling llama-cpp-python {VERSION} for {level} ({' '.join(cmake_args(level))}); "
            "a few minutes on 2 cores, then kept for re-installs",
            flush=True,
        )
        wheel, how = build_wheel(level, where), "built"
    if _installed_from() == wheel.as_uri() and not rebuild:
        return f"llama-cpp-python {VERSION} for {level}: installed ({wheel})"
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--force-reinstall", "--no-cache-dir", str(wheel)]
    if subprocess.run(cmd).returncode != 0:
        raise RuntimeError(f"pip could not install {wheel}")
    return f"llama-cpp-python {VERSION} for {level}: {how}, installed ({wheel})"


def main(argv: list[str] | None = None) -> int:
    """Command line: install the portable build (default), or ``--check`` libraries for AMX/AVX-512 code."""
    parser = argparse.ArgumentParser(prog="python -m bediscover_inspect.models.llama_build", description=__doc__)
    parser.add_argument("--cpu", default="auto", help="auto (default), x86-64-v3 or x86-64")
    parser.add_argument("--rebuild", action="store_true", help="discard the kept wheel and compile again")
    parser.add_argument("--check", nargs="*", metavar="LIB", help="count AMX/AVX-512 instructions (default: installed)")
    args = parser.parse_args(argv)
    try:
        if args.check is not None:
            libs = [Path(p) for p in args.check] or installed_libraries()
            bad = forbidden_instructions(libs)
            by_kind: dict[str, Counter[str]] = {}
            for key, count in bad.items():
                lib, kind, mnemonic = key.split(": ")
                by_kind.setdefault(f"{lib}: {kind}", Counter())[mnemonic] += count
            for name, mnemonics in sorted(by_kind.items()):
                examples = ", ".join(m for m, _ in mnemonics.most_common(4))
                print(f"{name}: {sum(mnemonics.values())} ({examples}, ...)")
            total = sum(bad.values())
            names = sorted({p.name.split(".so")[0] for p in libs})
            print(f"{total} AMX/AVX-512 instructions in {', '.join(names)} ({len(libs)} files)")
            return 1 if total else 0
        print(ensure_installed(args.cpu, args.rebuild))
    except (RuntimeError, ValueError) as ex:
        print(f"error: {ex}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
