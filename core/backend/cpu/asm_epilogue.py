"""The fused AVX2 epilogue's activation and affine steps, shared by
sgemm_asm_gen.py (the SGEMM micro-kernels' store) and avx2_asm_gen.py (the
depthwise rows' store): epilogueAVX2's float32 steps in its order, so the
fused kernels are bitwise the separate epilogue pass."""

# The kinds a fused epilogue takes: the Act (0 none, 1 relu, 5 hardswish6),
# or-ed with 0x100 for the affine scale and shift.
KINDS = (0, 1, 5, 0x100, 0x101, 0x105)


def consts(emit, prefix):
    """Emits the file-local 8-float constants PREFIXThree, PREFIXSix and
    PREFIXZero that act reads."""
    for nm, bits in (("Three", 0x40400000), ("Six", 0x40c00000), ("Zero", 0)):
        for i in range(8):
            emit(f"DATA {prefix}{nm}<>+{4*i}(SB)/4, ${bits:#x}")
        emit(f"GLOBL {prefix}{nm}<>(SB), RODATA|NOPTR, $32")
        emit()


def act(emit, prefix, kind, z, tmp, scale, shift):
    """Emits kind's steps on the vector register z: relu is max(z, 0) then
    +0 (-0 to +0; tmp must hold zero), hardswish6 z·min(max(z+3, 0), 6)/6
    (tmp a temporary), then with 0x100 z·scale + shift (scale and shift
    registers or memory operands)."""
    if kind & 0xff == 1:
        emit(f"\tVMAXPS {z}, {tmp}, {z}")
        emit(f"\tVADDPS {tmp}, {z}, {z}")
    elif kind & 0xff == 5:
        emit(f"\tVADDPS {prefix}Three<>(SB), {z}, {tmp}")
        emit(f"\tVPMAXSD {prefix}Zero<>(SB), {tmp}, {tmp}")
        emit(f"\tVPMINUD {prefix}Six<>(SB), {tmp}, {tmp}")
        emit(f"\tVMULPS {tmp}, {z}, {z}")
        emit(f"\tVDIVPS {prefix}Six<>(SB), {z}, {z}")
    if kind & 0x100:
        emit(f"\tVMULPS {scale}, {z}, {z}")
        emit(f"\tVADDPS {shift}, {z}, {z}")
