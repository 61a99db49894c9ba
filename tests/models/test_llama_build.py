"""The portable llama-cpp-python build: level choice, CMake switches, cache key, and the AMX/AVX-512 scan."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from bediscover_inspect.models import llama_build as lb

SOURCE = r"""
#include <immintrin.h>
__attribute__((target("avx512f"))) void f512(float *a) {
    __m512 x = _mm512_loadu_ps(a); _mm512_storeu_ps(a, _mm512_add_ps(x, x)); }
__attribute__((target("avx512f,avx512vl"))) void fvl(int *a) {
    __m256i x = _mm256_loadu_si256((void *)a); _mm256_storeu_si256((void *)a, _mm256_ternarylogic_epi32(x, x, x, 0x96)); }
__attribute__((target("amx-tile"))) void famx(void *p) { _tile_loadd(0, p, 64); _tile_release(); }
__attribute__((target("avx2,fma"))) void fv3(float *a) {
    __m256 x = _mm256_loadu_ps(a); _mm256_storeu_ps(a, _mm256_fmadd_ps(x, x, x)); }
"""


@pytest.fixture(scope="module")
def mixed_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A shared library with one AVX-512F, one AVX-512VL, one AMX and one AVX2/FMA function (compiled with gcc)."""
    gcc = shutil.which("gcc")
    assert gcc, "gcc is part of the set-up (README); it is needed here to compile the fixture library"
    root = tmp_path_factory.mktemp("isa")
    (root / "mixed.c").write_text(SOURCE)
    subprocess.run([gcc, "-O2", "-shared", "-fPIC", "-o", root / "mixed.so", root / "mixed.c"], check=True)
    return root / "mixed.so"


def test_scan_counts_each_amx_and_avx512_instruction_and_not_avx2(mixed_library: Path) -> None:
    # f512: vmovups zmm (load + store) and vaddps zmm; fvl: vpternlogd on ymm (EVEX only); famx: tileloadd,
    # tilerelease; fv3 (AVX2/FMA, within x86-64-v3) contributes nothing
    assert lb.forbidden_instructions([mixed_library]) == Counter(
        {
            "mixed.so: AVX-512: vmovups": 2,
            "mixed.so: AVX-512: vaddps": 1,
            "mixed.so: AVX-512: vpternlogd": 1,
            "mixed.so: AMX: tileloadd": 1,
            "mixed.so: AMX: tilerelease": 1,
        }
    )


def test_check_command_exits_1_with_the_count(mixed_library: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert lb.main(["--check", str(mixed_library)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "6 AMX/AVX-512 instructions in mixed (1 files)"


@pytest.mark.parametrize(
    ("insn", "expected"),
    [
        ("vpdpbusd %ymm1,%ymm2,%ymm3", ("AVX-512", "vpdpbusd")),  # VNNI: not in x86-64-v3
        ("{vex} vpdpbusd %ymm1,%ymm2,%ymm3", ("AVX-512", "vpdpbusd")),  # AVX-VNNI
        ("vaddps (%rax){1to8},%ymm1,%ymm2", ("AVX-512", "vaddps")),
        ("vmovups %ymm17,(%rax)", ("AVX-512", "vmovups")),
        ("kmovw %k1,%eax", ("AVX-512", "kmovw")),
        ("tdpbssd %tmm1,%tmm2,%tmm0", ("AMX", "tdpbssd")),
        ("vfmadd231ps %ymm1,%ymm2,%ymm0", None),
        ("vpmovzxbw (%rax),%ymm0", None),  # AVX2 zero-extension, not an AVX-512 down-conversion
        ("call 1040 <tdp_helper@plt>", None),  # a symbol name is not an instruction
        ("vpcmpeqb %ymm1,%ymm2,%ymm3", None),
    ],
)
def test_classify(insn: str, expected: tuple[str, str] | None) -> None:
    assert lb.classify(insn) == expected


@pytest.mark.slow
def test_installed_library_has_no_amx_or_avx512_instruction() -> None:
    libs = lb.installed_libraries()
    assert any(p.name.startswith("libggml-cpu") for p in libs), [p.name for p in libs]
    assert lb.forbidden_instructions(libs) == Counter()


def test_level_choice() -> None:
    v3 = {"sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "amx_tile"}
    assert lb.choose_level("auto", v3, "x86_64") == "x86-64-v3"
    assert lb.choose_level("auto", v3 - {"avx2"}, "x86_64") == "x86-64"
    assert lb.choose_level("auto", None, "x86_64") == "x86-64-v3"
    assert lb.choose_level("x86-64", v3, "x86_64") == "x86-64"
    assert lb.choose_level("auto", v3, "aarch64") == "generic"
    with pytest.raises(ValueError, match="x86-64-v4"):
        lb.choose_level("x86-64-v4", v3, "x86_64")


def test_cmake_switches_never_native_avx512_or_amx() -> None:
    v3 = lb.cmake_args("x86-64-v3")
    assert v3[:2] == ["-DGGML_NATIVE=OFF", "-DLLAVA_BUILD=OFF"]
    assert "-DGGML_AVX2=ON" in v3 and "-DGGML_FMA=ON" in v3
    assert [a for a in v3 if "512" in a or "AMX" in a or "VNNI" in a] == [
        "-DGGML_AVX_VNNI=OFF",
        "-DGGML_AVX512=OFF",
        "-DGGML_AVX512_VBMI=OFF",
        "-DGGML_AVX512_VNNI=OFF",
        "-DGGML_AVX512_BF16=OFF",
        "-DGGML_AMX_TILE=OFF",
        "-DGGML_AMX_INT8=OFF",
        "-DGGML_AMX_BF16=OFF",
    ]
    assert [a for a in lb.cmake_args("x86-64") if a.endswith("=ON")] == []


def test_cache_key_separates_levels_and_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    v3, v1 = lb.cache_key("x86-64-v3"), lb.cache_key("x86-64")
    assert v3.startswith(f"{lb.VERSION}-x86-64-v3-") and v1.startswith(f"{lb.VERSION}-x86-64-")
    assert v3.split("-")[-1] != v1.split("-")[-1]
    monkeypatch.setattr(lb, "VERSION", "0.3.99")
    assert lb.cache_key("x86-64-v3").split("-")[-1] != v3.split("-")[-1]
