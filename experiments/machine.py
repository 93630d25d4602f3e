"""What the recorded runs of tools/*.py say about the machine they ran on."""


def cpu_name():
    """The CPU as /proc/cpuinfo names it, with its family and model (which tell AMD's generations
    apart) and its widest vector instructions (which decide OpenBLAS's kernels)."""
    info = {}
    for line in open("/proc/cpuinfo"):
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    flags = info.get("flags", "").split()
    simd = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return "%s (family %s, model %s, %s)" % (info.get("model name", "?"), info.get("cpu family", "?"),
                                             info.get("model", "?"), simd)
