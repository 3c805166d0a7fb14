#!/usr/bin/env python3
"""Writes qgemm_amd64.s: the int8 GEMM micro-kernels (qgemm.go), in Go
assembly (ABI0).

Run from this directory:  python3 qgemm_asm_gen.py > qgemm_amd64.s

qgemmVNNI12x32(kp int, a, b *byte, c *int32, ldc int, accum, aSigned uint32)
  AVX-512 VNNI. a: kp/4 groups of 12 rows x 4 bytes; b: kp/4 groups of 32
  columns x 4 bytes. acc[r][j] += sum_t a[g][r][t]*b[g][j][t] with vpdpbusd
  (unsigned bytes times signed bytes, four products summed into int32: no
  intermediate rounding or saturation). aSigned picks which operand is the
  signed one. Writes (or with accum adds into) c[r*ldc + j], 12x32 int32.
  qgemmVNNI4x32 and qgemmVNNI8x32 (and their Groups forms) read the same
  12-row A panels and compute and write only their first 4 or 8 rows.

qgemmVNNI12x32Groups(groups int, a, b *byte, off *int, c *int32, ldc int, accum, aSigned uint32)
  qgemmVNNI12x32 reading B in place instead of from a packed panel: group
  g's 32 columns x 4 bytes are the 128 bytes at b + off[g] (B's k rows
  already interleaved in fours by column, as a packed panel holds them).

qgemmAVX2x6x16(kp int, a, b *byte, c *int32, ldc int, accum uint32)
  AVX2. a: kp/2 pairs of 6 rows x 2 int16; b: kp/2 pairs of 16 columns x 2
  int16. vpmaddwd multiplies int16 pairs and sums each pair into int32
  (exact: |product sums| <= 2*128*255), vpaddd accumulates. 6x16 int32.

qgemmAVX2U8x6x16(kp int, a, b *byte, c *int32, ldc int, accum, aSigned uint32)
  AVX2 on bytes, for a signed operand in [-64, 63]. a: kp/4 groups of 6
  rows x 4 bytes; b: kp/4 groups of 16 columns x 4 bytes (the VNNI
  layouts). vpmaddubsw multiplies unsigned by signed bytes and sums each
  pair into int16 with saturation, which never happens here:
  |u0*s0 + u1*s1| <= 2*255*64 = 32640 <= 32767; vpmaddwd with a vector of
  ones sums the int16 pairs into int32 (four products per int32), vpaddd
  accumulates. aSigned picks which operand is the signed one. 6x16 int32.
"""

out = []

# The short variants' heights: a last row panel of at most that many rows
# runs one of them instead of the full kernel (M = 16 at VNNI: 12 + 4
# rows, not 12 + 12). PP-OCRv4 det's first convs (16 and 32 outputs at
# 480×480) took 25 % and 12 % less time; AVX2 variants of 2 and 4 rows
# measured no gain there (its 6-row kernel wastes less) and are not made.
QVNNI_SHORT = (4, 8)
QAVX2_SHORT = ()


def emit(s=""):
    out.append(s)


def store_tile(rows, reg, half, mov, accum=40):
    """The end of every kernel: the tile's int32 accumulators (two registers
    of width half bytes per row) added to C (accum != 0, the argument at
    frame offset accum) or written over it, ldc bytes (SI) apart."""
    emit(f"\tMOVL accum+{accum}(FP), R8")
    emit("\tTESTL R8, R8")
    emit("\tJZ write")
    for r in range(rows):
        emit(f"\tVPADDD (DX), {reg}{2*r}, {reg}{2*r}")
        emit(f"\tVPADDD {half}(DX), {reg}{2*r+1}, {reg}{2*r+1}")
        emit(f"\t{mov} {reg}{2*r}, (DX)")
        emit(f"\t{mov} {reg}{2*r+1}, {half}(DX)")
        emit("\tADDQ SI, DX")
    emit("\tVZEROUPPER")
    emit("\tRET")
    emit("write:")
    for r in range(rows):
        emit(f"\t{mov} {reg}{2*r}, (DX)")
        emit(f"\t{mov} {reg}{2*r+1}, {half}(DX)")
        emit("\tADDQ SI, DX")
    emit("\tVZEROUPPER")
    emit("\tRET")
    emit()


def vnni(groups=False, rows=12):
    """The VNNI kernel; with groups, B's group g at BX + off[g] (R9 walks
    off) instead of BX advancing by a packed group. rows < 12: a short
    variant computing the first rows rows of the 12-row A panel."""
    name = f"qgemmVNNI{rows}x32"
    if groups:
        emit(f"// func {name}Groups(groups int, a, b *byte, off *int, c *int32, ldc int, accum, aSigned uint32)")
        emit(f"TEXT ·{name}Groups(SB), NOSPLIT, $0-56")
        emit("\tMOVQ groups+0(FP), CX")
        emit("\tMOVQ a+8(FP), AX")
        emit("\tMOVQ b+16(FP), BX")
        emit("\tMOVQ off+24(FP), R9")
        emit("\tMOVQ c+32(FP), DX")
        emit("\tMOVQ ldc+40(FP), SI")
        emit("\tSHLQ $2, SI")
        flags = 48
        bsrc, bstep = "(BX)(R10*1)", "\tADDQ $8, R9"
    else:
        emit(f"// func {name}(kp int, a, b *byte, c *int32, ldc int, accum, aSigned uint32)")
        emit(f"TEXT ·{name}(SB), NOSPLIT, $0-48")
        emit("\tMOVQ kp+0(FP), CX")
        emit("\tMOVQ a+8(FP), AX")
        emit("\tMOVQ b+16(FP), BX")
        emit("\tMOVQ c+24(FP), DX")
        emit("\tMOVQ ldc+32(FP), SI")
        emit("\tSHLQ $2, SI")
        emit("\tSHRQ $2, CX")
        flags = 40
        bsrc, bstep = "(BX)", "\tADDQ $128, BX"
    for r in range(2 * rows):
        emit(f"\tVPXORD Z{r}, Z{r}, Z{r}")
    emit(f"\tMOVL aSigned+{flags+4}(FP), R8")
    emit("\tTESTL R8, R8")
    emit("\tJNZ signedA")

    def load_b():
        if groups:
            emit("\tMOVQ (R9), R10")
        emit(f"\tVMOVDQU32 {bsrc}, Z24")
        emit(f"\tVMOVDQU32 64{bsrc}, Z25")

    # A unsigned (broadcast into a register), B signed (the vector operand)
    emit("loopU:")
    load_b()
    for r in range(rows):
        emit(f"\tVPBROADCASTD {4*r}(AX), Z26")
        # Go order: signed source, unsigned source, accumulator
        emit(f"\tVPDPBUSD Z24, Z26, Z{2*r}")
        emit(f"\tVPDPBUSD Z25, Z26, Z{2*r+1}")
    emit("\tADDQ $48, AX")
    emit(bstep)
    emit("\tDECQ CX")
    emit("\tJNZ loopU")
    emit("\tJMP store")
    # A signed: its four bytes broadcast from memory, B unsigned
    emit("signedA:")
    emit("loopS:")
    load_b()
    for r in range(rows):
        emit(f"\tVPDPBUSD.BCST {4*r}(AX), Z24, Z{2*r}")
        emit(f"\tVPDPBUSD.BCST {4*r}(AX), Z25, Z{2*r+1}")
    emit("\tADDQ $48, AX")
    emit(bstep)
    emit("\tDECQ CX")
    emit("\tJNZ loopS")
    emit("store:")
    store_tile(rows, "Z", 64, "VMOVDQU32", flags)


def avx2(rows=6):
    """The AVX2 int16 kernel; rows < 6: a short variant computing the
    first rows rows of the 6-row A panel (none made: QAVX2_SHORT)."""
    emit(f"// func qgemmAVX2x{rows}x16(kp int, a, b *byte, c *int32, ldc int, accum uint32)")
    emit(f"TEXT ·qgemmAVX2x{rows}x16(SB), NOSPLIT, $0-44")
    emit("\tMOVQ kp+0(FP), CX")
    emit("\tMOVQ a+8(FP), AX")
    emit("\tMOVQ b+16(FP), BX")
    emit("\tMOVQ c+24(FP), DX")
    emit("\tMOVQ ldc+32(FP), SI")
    emit("\tSHLQ $2, SI")
    emit("\tSHRQ $1, CX")
    for r in range(2 * rows):
        emit(f"\tVPXOR Y{r}, Y{r}, Y{r}")
    emit("loop:")
    emit("\tVMOVDQU (BX), Y12")
    emit("\tVMOVDQU 32(BX), Y13")
    for r in range(rows):
        emit(f"\tVPBROADCASTD {4*r}(AX), Y14")
        emit(f"\tVPMADDWD Y12, Y14, Y15")
        emit(f"\tVPADDD Y15, Y{2*r}, Y{2*r}")
        emit(f"\tVPMADDWD Y13, Y14, Y15")
        emit(f"\tVPADDD Y15, Y{2*r+1}, Y{2*r+1}")
    emit("\tADDQ $24, AX")
    emit("\tADDQ $64, BX")
    emit("\tDECQ CX")
    emit("\tJNZ loop")
    store_tile(rows, "Y", 32, "VMOVDQU")


def avx2u8():
    emit("// func qgemmAVX2U8x6x16(kp int, a, b *byte, c *int32, ldc int, accum, aSigned uint32)")
    emit("TEXT ·qgemmAVX2U8x6x16(SB), NOSPLIT, $0-48")
    emit("\tMOVQ kp+0(FP), CX")
    emit("\tMOVQ a+8(FP), AX")
    emit("\tMOVQ b+16(FP), BX")
    emit("\tMOVQ c+24(FP), DX")
    emit("\tMOVQ ldc+32(FP), SI")
    emit("\tSHLQ $2, SI")
    emit("\tSHRQ $2, CX")
    for r in range(12):
        emit(f"\tVPXOR Y{r}, Y{r}, Y{r}")
    emit("\tMOVL aSigned+44(FP), R8")
    emit("\tTESTL R8, R8")
    emit("\tJNZ signedA")
    # Go order VPMADDUBSW signed, unsigned, dst (Intel: dst, unsigned, signed)
    for label, signedA in (("loopU", False), ("loopS", True)):
        if signedA:
            emit("signedA:")
        emit(f"{label}:")
        emit("\tVMOVDQU (BX), Y12")
        emit("\tVMOVDQU 32(BX), Y13")
        for r in range(6):
            emit(f"\tVPBROADCASTD {4*r}(AX), Y14")
            for h in range(2):
                s, u = ("Y14", f"Y{12+h}") if signedA else (f"Y{12+h}", "Y14")
                emit(f"\tVPMADDUBSW {s}, {u}, Y15")
                emit("\tVPMADDWD qones16<>(SB), Y15, Y15")
                emit(f"\tVPADDD Y15, Y{2*r+h}, Y{2*r+h}")
        emit("\tADDQ $24, AX")
        emit("\tADDQ $64, BX")
        emit("\tDECQ CX")
        emit(f"\tJNZ {label}")
        if not signedA:
            emit("\tJMP store")
    emit("store:")
    store_tile(6, "Y", 32, "VMOVDQU")


def ones16():
    emit("// 16 int16 ones: vpmaddwd with it sums int16 pairs into int32.")
    for i in range(4):
        emit(f"DATA qones16<>+{8*i}(SB)/8, $0x0001000100010001")
    emit("GLOBL qones16<>(SB), RODATA|NOPTR, $32")
    emit()


def packb4(cols, along=False):
    """Packs groups of 4 rows x cols bytes; along: the interleave of one
    group of 4 rows, 32 columns at a time along them (qinterleave4x32)."""
    if along:
        emit("// func qinterleave4x32(src *byte, ldb, chunks int, dst *byte)")
        emit("// dst[c*128 + 4j + t] = src[t*ldb + 32c + j] for c < chunks, j < 32, t < 4.")
        emit("TEXT ·qinterleave4x32(SB), NOSPLIT, $0-32")
    else:
        emit(f"// func qpackB4x{cols}(src *byte, ldb, groups int, dst *byte)")
        emit(f"// dst[g*{4*cols} + 4j + t] = src[(4g+t)*ldb + j] for g < groups, j < {cols}, t < 4.")
        emit(f"TEXT ·qpackB4x{cols}(SB), NOSPLIT, $0-32")
    emit("\tMOVQ src+0(FP), SI")
    emit("\tMOVQ ldb+8(FP), BX")
    emit(f"\tMOVQ {'chunks' if along else 'groups'}+16(FP), CX")
    emit("\tMOVQ dst+24(FP), DI")
    emit("\tLEAQ (BX)(BX*2), DX") # 3*ldb
    emit("loop4:")
    for half in range(cols // 16):
        o = 16 * half
        emit(f"\tVMOVDQU {o}(SI), X0")
        emit(f"\tVMOVDQU {o}(SI)(BX*1), X1")
        emit(f"\tVMOVDQU {o}(SI)(BX*2), X2")
        emit(f"\tVMOVDQU {o}(SI)(DX*1), X3")
        emit("\tVPUNPCKLBW X1, X0, X4")  # r0,r1 bytes of cols 0-7
        emit("\tVPUNPCKHBW X1, X0, X5")  # cols 8-15
        emit("\tVPUNPCKLBW X3, X2, X6")
        emit("\tVPUNPCKHBW X3, X2, X7")
        emit("\tVPUNPCKLWD X6, X4, X8")  # cols 0-3, 4 bytes each
        emit("\tVPUNPCKHWD X6, X4, X9")  # cols 4-7
        emit("\tVPUNPCKLWD X7, X5, X10")
        emit("\tVPUNPCKHWD X7, X5, X11")
        emit(f"\tVMOVDQU X8, {64*half}(DI)")
        emit(f"\tVMOVDQU X9, {64*half+16}(DI)")
        emit(f"\tVMOVDQU X10, {64*half+32}(DI)")
        emit(f"\tVMOVDQU X11, {64*half+48}(DI)")
    if along:
        emit(f"\tADDQ ${cols}, SI")
    else:
        emit("\tLEAQ (SI)(BX*4), SI")
    emit(f"\tADDQ ${4*cols}, DI")
    emit("\tDECQ CX")
    emit("\tJNZ loop4")
    emit("\tRET")
    emit()


def packb2(signed):
    name = "qpackB2x16S" if signed else "qpackB2x16U"
    ext = "VPMOVSXBW" if signed else "VPMOVZXBW"
    emit(f"// func {name}(src *byte, ldb, pairs int, dst *byte)")
    emit("// int16 element dst[g*32 + 2j + t] = src[(2g+t)*ldb + j] widened, g < pairs, j < 16, t < 2.")
    emit(f"TEXT ·{name}(SB), NOSPLIT, $0-32")
    emit("\tMOVQ src+0(FP), SI")
    emit("\tMOVQ ldb+8(FP), BX")
    emit("\tMOVQ pairs+16(FP), CX")
    emit("\tMOVQ dst+24(FP), DI")
    # interleave the two rows' bytes, then widen: 4 shuffles a pair
    emit("loop2:")
    emit("\tVMOVDQU (SI), X0")
    emit("\tVMOVDQU (SI)(BX*1), X1")
    emit("\tVPUNPCKLBW X1, X0, X2")
    emit("\tVPUNPCKHBW X1, X0, X3")
    emit(f"\t{ext} X2, Y2")
    emit(f"\t{ext} X3, Y3")
    emit("\tVMOVDQU Y2, (DI)")
    emit("\tVMOVDQU Y3, 32(DI)")
    emit("\tLEAQ (SI)(BX*2), SI")
    emit("\tADDQ $64, DI")
    emit("\tDECQ CX")
    emit("\tJNZ loop2")
    emit("\tVZEROUPPER")
    emit("\tRET")
    emit()


emit("// Code generated by qgemm_asm_gen.py; DO NOT EDIT.")
emit()
emit("//go:build amd64 && !purego")
emit()
emit('#include "textflag.h"')
emit()
vnni()
vnni(groups=True)
for rows in QVNNI_SHORT:
    vnni(rows=rows)
    vnni(groups=True, rows=rows)
avx2()
for rows in QAVX2_SHORT:
    avx2(rows)
avx2u8()
ones16()
packb4(32)
packb4(16)
packb4(32, along=True)
packb2(False)
packb2(True)
print("\n".join(out), end="")
