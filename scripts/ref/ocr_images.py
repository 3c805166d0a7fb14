#!/usr/bin/python3
"""ocr_images.py [OUT_DIR] — render the OCR kit's test images (PNG) into OUT_DIR
(default kits/ocr/testdata/images).

Run with Debian's /usr/bin/python3 (python3-pil, python3-numpy) and the fonts of
fonts-dejavu-core and fonts-noto-cjk. Deterministic: fixed seeds, fixed fonts.
The images are committed; rerun only to change them (then rerun ocr_reference.py).
"""
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
DEJAVU_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"  # index 2 = SC


def font(path, size, index=0):
    return ImageFont.truetype(path, size, index=index)


def lines_image(w, h, lines, bg=(255, 255, 255)):
    im = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(im)
    for (x, y, text, f, color) in lines:
        d.text((x, y), text, font=f, fill=color)
    return im


def rotated_text(text, f, color, angle, bg=(0, 0, 0, 0)):
    """A transparent RGBA tile with text, rotated by angle degrees (expand)."""
    l, t, r, b = f.getbbox(text)
    tile = Image.new("RGBA", (r - l + 16, b - t + 16), bg)
    ImageDraw.Draw(tile).text((8 - l, 8 - t), text, font=f, fill=color)
    return tile.rotate(angle, resample=Image.BICUBIC, expand=True)


def main(out):
    os.makedirs(out, exist_ok=True)
    black = (20, 20, 20)

    # English document lines (also the README sample)
    f = font(DEJAVU, 22)
    im = lines_image(560, 200, [
        (20, 18, "PaddleOCR in one static Go binary", font(DEJAVU_BOLD, 24), black),
        (20, 62, "Invoice No. 2024-0815   Total: $1,234.56", f, black),
        (20, 104, "The quick brown fox jumps over the lazy dog.", f, (40, 40, 120)),
        (20, 146, "Contact: ocr@example.com, tel. +1 555 0100", font(SERIF, 20), black),
    ])
    im.save(os.path.join(out, "sample_en.png"), optimize=True)

    # Chinese-English mix
    fz = font(CJK, 26, index=2)
    im = lines_image(520, 170, [
        (16, 14, "欢迎使用 PaddleOCR 文字识别", fz, black),
        (16, 64, "今天天气很好，Temperature 25°C", fz, (120, 20, 20)),
        (16, 114, "北京市海淀区 100080 号", fz, black),
    ])
    im.save(os.path.join(out, "mix_zh_en.png"), optimize=True)

    # rotated lines: 12 degrees, upside down (for the angle classifier), vertical
    im = Image.new("RGB", (480, 360), (250, 250, 245))
    tile = rotated_text("Rotated line of text 42", font(DEJAVU, 26), (10, 10, 10, 255), 12)
    im.paste(tile, (20, 10), tile)
    tile = rotated_text("Upside down sentence", font(DEJAVU, 26), (10, 10, 60, 255), 180)
    im.paste(tile, (60, 170), tile)
    tile = rotated_text("VERTICAL", font(DEJAVU_BOLD, 24), (90, 10, 10, 255), 90)
    im.paste(tile, (420, 110), tile)
    tile = rotated_text("slight tilt -4", font(DEJAVU, 22), (10, 10, 10, 255), -4)
    im.paste(tile, (40, 270), tile)
    im.save(os.path.join(out, "rotated.png"), optimize=True)

    # photo-like: smooth colour gradient, soft blobs, mild noise, a sign with text
    rng = np.random.default_rng(7)
    h, w = 300, 440
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    bg = np.stack([
        120 + 60 * np.sin(xx / 90.0) + 20 * (yy / h),
        140 + 40 * np.cos(yy / 70.0),
        90 + 50 * (xx / w) + 30 * np.sin((xx + yy) / 120.0),
    ], axis=-1)
    for _ in range(6):
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(30, 90)
        col = rng.uniform(-50, 50, size=3)
        m = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        bg += m[..., None] * col
    bg += rng.normal(0, 3.0, size=bg.shape)
    im = Image.fromarray(np.clip(bg, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.6))
    d = ImageDraw.Draw(im)
    d.rectangle((40, 50, 400, 190), fill=(245, 240, 225), outline=(60, 60, 60), width=3)
    d.text((60, 66), "OPEN 24 HOURS", font=font(DEJAVU_BOLD, 34), fill=(180, 20, 20))
    d.text((62, 120), "Coffee & Tea  咖啡", font=font(CJK, 30, index=2), fill=(30, 30, 30))
    tile = rotated_text("Main Street 12", font(DEJAVU, 24), (250, 250, 250, 255), 3)
    im.paste(tile, (120, 225), tile)
    im.save(os.path.join(out, "photo.png"), optimize=True)

    # wide page: 1280x363 -> det size 256x960 (int(363*0.75)=272, 272/32=8.5 rounds to 8)
    f = font(DEJAVU, 40)
    im = lines_image(1280, 363, [
        (40, 40, "Banker's rounding: 272 / 32 = 8.5 -> 8", f, black),
        (40, 140, "A wide page is shrunk to 960 pixels first.", f, black),
        (40, 240, "Third line, still readable: 0123456789", f, (0, 70, 0)),
    ])
    im.save(os.path.join(out, "wide.png"), optimize=True)

    # one short line: min side < 64 (the v3 profile enlarges it) and the det=false input
    im = lines_image(300, 48, [(10, 8, "Hello World 123", font(DEJAVU, 26), black)])
    im.save(os.path.join(out, "line.png"), optimize=True)

    # tiny: h + w < 64, padded to 32x32 before detection
    im = lines_image(40, 20, [(2, 2, "OK", font(DEJAVU, 14), black)])
    im.save(os.path.join(out, "tiny.png"), optimize=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "kits/ocr/testdata/images")
