"""Screenshots of one drawn button, in each of the 30 languages the policy speaks.

Used by the OCR tests and `benchmarks/ocr_crops.py`: a page with one button in the
middle (a label a model would click on a canvas) and a line of other text above it,
in several font sizes and colour themes. CJK labels use WenQuanYi Micro Hei
(`fonts-wqy-microhei`), Hindi Lohit Devanagari (`fonts-lohit-deva`), the others DejaVu
Sans Bold.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

# label, its category, a window title in the same language
BUTTONS = {
    "en": ("Place order", "payment", "Checkout"), "zh": ("立即购买", "payment", "商品详情"),
    "es": ("Eliminar", "delete", "Archivos"), "ar": ("حذف", "delete", "الملفات"),
    "pt": ("Finalizar compra", "payment", "Carrinho"), "id": ("Bayar sekarang", "payment", "Toko"),
    "fr": ("Supprimer", "delete", "Fichiers"), "ja": ("注文する", "payment", "カート"),
    "ru": ("Удалить", "delete", "Файлы"), "de": ("Jetzt kaufen", "payment", "Warenkorb"),
    "ko": ("결제하기", "payment", "장바구니"), "it": ("Elimina", "delete", "File"),
    "tr": ("Siparişi onayla", "payment", "Sepet"), "vi": ("Thanh toán", "payment", "Giỏ hàng"),
    "nl": ("Verwijderen", "delete", "Bestanden"), "pl": ("Wyślij", "send", "Wiadomość"),
    "uk": ("Видалити", "delete", "Файли"), "cs": ("Zaplatit nyní", "payment", "Košík"),
    "sv": ("Köp nu", "payment", "Varukorg"), "el": ("Διαγραφή", "delete", "Αρχεία"),
    "hi": ("हटाएं", "delete", "फ़ाइलें"), "he": ("מחיקה", "delete", "קבצים"),
    "fa": ("ارسال", "send", "پیام‌ها"), "ro": ("Șterge", "delete", "Fișiere"),
    "hu": ("Törlés", "delete", "Fájlok"), "da": ("Betal nu", "payment", "Indkøbskurv"),
    "fi": ("Poista", "delete", "Tiedostot"), "nb": ("Slett", "delete", "Filer"),
    "sk": ("Odoslať", "send", "Správa"), "bg": ("Изтриване", "delete", "Файлове"),
}
THEMES = (((0, 113, 227), (255, 255, 255)), ((255, 204, 0), (20, 20, 20)),
          ((245, 245, 247), (30, 30, 30)), ((40, 40, 40), (250, 250, 250)))
FONTS = {"zh": "wqy/wqy-microhei.ttc", "ja": "wqy/wqy-microhei.ttc", "ko": "wqy/wqy-microhei.ttc",
         "hi": "lohit-devanagari/Lohit-Devanagari.ttf"}
FONT_DIR = Path("/usr/share/fonts/truetype")
SCREEN = (1280, 800)
POINT = (640, 400)


def screenshot(label: str, lang: str, size: int, theme: int) -> Image.Image:
    """A page with one button in the middle and a line of other text above it."""
    path = FONT_DIR / FONTS.get(lang, "dejavu/DejaVuSans-Bold.ttf")
    assert path.is_file(), f"font {path} is missing (scripts/test.sh installs it)"
    fill, ink = THEMES[theme]
    font = ImageFont.truetype(str(FONT_DIR / FONTS.get(lang, "dejavu/DejaVuSans-Bold.ttf")), size)
    image = Image.new("RGB", SCREEN, (250, 250, 252))
    draw = ImageDraw.Draw(image)
    draw.text((POINT[0], POINT[1] - 70), "Total 49.00 · 2 items", font=font, fill=(90, 90, 90),
              anchor="mm")
    width = draw.textlength(label, font=font)
    box = (POINT[0] - width / 2 - 18, POINT[1] - size / 2 - 11,
           POINT[0] + width / 2 + 18, POINT[1] + size / 2 + 11)
    draw.rounded_rectangle(box, radius=8, fill=fill, outline=(120, 120, 120))
    draw.text(POINT, label, font=font, fill=ink, anchor="mm")
    return image
